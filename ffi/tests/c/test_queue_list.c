/*
 * Lists returned by an allocation share the input list's storage (positions into it, not
 * copies). These tests pin down what that must not change: a share outlives its input, neither
 * sees the other's later pushes or sorts, a share can be changed, shared again and given back
 * as an input, and several threads may read one share at once. Expected answers are AVG's,
 * derived by hand: 10 queues over 3 ids give the first id queues 0-3, the second 4-6, the third
 * 7-9; the run also goes under ASan and valgrind (scripts/test-c.sh).
 */
#include <pthread.h>

#include "check.h"

static const char *const IDS[] = {"c0", "c1", "c2"};

static rmq_queue_list *share_of(const rmq_strategy *s, const rmq_queue_list *queues, const char *id, size_t ids_len) {
    rmq_queue_list *mine = NULL;
    CHECK_OK(rmq_strategy_allocate(s, "G", id, queues, IDS, ids_len, &mine));
    return mine;
}

static int ids_equal(const rmq_queue_list *list, const int32_t *want, size_t n) {
    if (rmq_queue_list_len(list) != n) return 0;
    for (size_t i = 0; i < n; i++)
        if (queue_id_at(list, i) != want[i]) return 0;
    return 1;
}

static const char *topic_at(const rmq_queue_list *list, size_t i) {
    const char *topic = NULL;
    CHECK_OK(rmq_queue_list_get(list, i, &topic, NULL, NULL));
    return topic;
}

static void test_share_outlives_input(const rmq_strategy *s) {
    rmq_queue_list *all = queues_of("T", "b", 10);
    rmq_queue_list *mine = share_of(s, all, "c1", 3);
    const char *topic = topic_at(mine, 0);
    rmq_queue_list_free(all);
    /* The names borrowed from the share stay valid while the share lives. */
    CHECK(strcmp(topic, "T") == 0);
    CHECK(ids_equal(mine, (const int32_t[]){4, 5, 6}, 3));
    const char *broker = NULL;
    CHECK_OK(rmq_queue_list_get(mine, 2, NULL, &broker, NULL));
    CHECK(strcmp(broker, "b") == 0);
    CHECK_RC(rmq_queue_list_get(mine, 3, NULL, NULL, NULL), RMQ_RESULT_OUT_OF_RANGE);
    rmq_queue_list_free(mine);
}

static void test_changes_stay_apart(const rmq_strategy *s) {
    rmq_queue_list *all = queues_of("T", "b", 10);
    rmq_queue_list *first = share_of(s, all, "c0", 3);
    rmq_queue_list *last = share_of(s, all, "c2", 3);
    /* The input changes: the shares keep what they were given. */
    CHECK_OK(rmq_queue_list_push(all, "A", "a", 99));
    CHECK_OK(rmq_queue_list_sort(all));
    CHECK(queue_id_at(all, 0) == 99);
    CHECK(ids_equal(first, (const int32_t[]){0, 1, 2, 3}, 4));
    /* A share changes: its input and its sibling do not. */
    CHECK_OK(rmq_queue_list_push(last, "T", "a", 42));
    CHECK_OK(rmq_queue_list_sort(last));
    CHECK(ids_equal(last, (const int32_t[]){42, 7, 8, 9}, 4)); /* broker "a" sorts before "b" */
    CHECK(rmq_queue_list_len(all) == 11);
    CHECK(ids_equal(first, (const int32_t[]){0, 1, 2, 3}, 4));
    rmq_queue_list_free(all);
    rmq_queue_list_free(first);
    rmq_queue_list_free(last);
}

static void test_share_as_input(const rmq_strategy *s) {
    rmq_queue_list *all = queues_of("T", "b", 10);
    rmq_queue_list *first = share_of(s, all, "c0", 3); /* queues 0-3 */
    /* A share of a share: 4 queues over 2 ids, the second id gets 2-3. */
    rmq_queue_list *inner = share_of(s, first, "c1", 2);
    CHECK(ids_equal(inner, (const int32_t[]){2, 3}, 2));
    /* The group view keeps its input and answers with shares of it. */
    rmq_group_allocation *view = NULL;
    CHECK_OK(rmq_strategy_allocate_group(s, "G", first, IDS, 2, &view));
    rmq_queue_list_free(first);
    rmq_queue_list *member = NULL;
    CHECK_OK(rmq_group_allocation_member(view, 0, NULL, &member));
    CHECK(ids_equal(member, (const int32_t[]){0, 1}, 2));
    CHECK(strcmp(topic_at(member, 1), "T") == 0);
    rmq_queue_list_free(member);
    rmq_group_allocation_free(view);
    rmq_queue_list_free(inner);
    rmq_queue_list_free(all);
}

struct reader {
    const rmq_strategy *s;
    const rmq_queue_list *share;
    int ok;
};

/* Reads one share as an input from several threads: the first read lays its queues out. */
static void *read_share(void *arg) {
    struct reader *r = arg;
    r->ok = 1;
    for (int round = 0; round < 200; round++) {
        rmq_queue_list *mine = NULL;
        if (rmq_strategy_allocate(r->s, "G", "c1", r->share, IDS, 2, &mine) != RMQ_RESULT_OK) r->ok = 0;
        int32_t a = -1, b = -1;
        if (rmq_queue_list_len(mine) != 2 || rmq_queue_list_get(mine, 0, NULL, NULL, &a) != RMQ_RESULT_OK ||
            rmq_queue_list_get(mine, 1, NULL, NULL, &b) != RMQ_RESULT_OK || a != 8 || b != 9)
            r->ok = 0;
        rmq_queue_list_free(mine);
    }
    return NULL;
}

static void test_threads_read_one_share(const rmq_strategy *s) {
    rmq_queue_list *all = queues_of("T", "b", 10);
    rmq_queue_list *share = NULL;
    /* 10 queues over 2 ids: the second gets 5-9. Of those 5 over 2 ids, the second gets 2
     * starting at position 1 * 2 + 5 % 2 = 3: queues 8 and 9 (what read_share expects). */
    CHECK_OK(rmq_strategy_allocate(s, "G", "c1", all, IDS, 2, &share));
    CHECK(ids_equal(share, (const int32_t[]){5, 6, 7, 8, 9}, 5));
    rmq_queue_list_free(all);
    struct reader readers[4];
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) {
        readers[i] = (struct reader){s, share, 0};
        CHECK(pthread_create(&threads[i], NULL, read_share, &readers[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        CHECK(pthread_join(threads[i], NULL) == 0);
        CHECK(readers[i].ok);
    }
    rmq_queue_list_free(share);
}

int main(void) {
    rmq_strategy *avg = NULL;
    CHECK_OK(rmq_strategy_averagely_new(&avg));
    test_share_outlives_input(avg);
    test_changes_stay_apart(avg);
    test_share_as_input(avg);
    test_threads_read_one_share(avg);
    rmq_strategy_free(avg);
    return check_report("test_queue_list");
}
