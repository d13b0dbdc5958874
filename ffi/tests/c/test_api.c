/*
 * The C API beyond the vectors: versions, error paths (NULL, invalid UTF-8, bad lengths, small
 * buffers, unknown names), the last error's detail, Java ordering, resolvers that fail, the group view with hand-derived
 * numbers, and threads sharing one strategy. The engine is in test_engine.c and
 * test_engine_safety.c.
 */
#include <pthread.h>
#include <stdint.h>

#include "check.h"

#ifndef EXPECTED_VERSION
#error "compile with -DEXPECTED_VERSION=\"x.y.z\" taken from Cargo.toml"
#endif

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void test_version(void) {
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", RMQ_VERSION_MAJOR, RMQ_VERSION_MINOR, RMQ_VERSION_PATCH);
    CHECK(strcmp(expected, EXPECTED_VERSION) == 0); /* header macros == Cargo.toml */
    CHECK(strcmp(rmq_version(), EXPECTED_VERSION) == 0); /* loaded library == Cargo.toml */
    CHECK(rmq_version_number() == RMQ_VERSION_MAJOR * 1000000u + RMQ_VERSION_MINOR * 1000u + RMQ_VERSION_PATCH);
}

static void test_messages(void) {
    char buf[128];
    size_t n = 0;
    CHECK_OK(rmq_result_message(RMQ_RESULT_EMPTY_CURRENT_ID, buf, sizeof buf, &n));
    CHECK(strcmp(buf, "currentCID is empty") == 0 && n == strlen(buf));
    /* Too small: nothing but the length needed is written. */
    char tiny[4] = "abc";
    CHECK_RC(rmq_result_message(RMQ_RESULT_EMPTY_CURRENT_ID, tiny, sizeof tiny, &n), RMQ_RESULT_BUFFER_TOO_SMALL);
    CHECK(n == strlen("currentCID is empty") + 1 && strcmp(tiny, "abc") == 0);
    CHECK_RC(rmq_result_message(4242, buf, sizeof buf, &n), RMQ_RESULT_OUT_OF_RANGE);
    CHECK_RC(rmq_result_message(RMQ_RESULT_OK, buf, sizeof buf, NULL), RMQ_RESULT_NULL_PARAMETER);
    CHECK_RC(rmq_result_message(RMQ_RESULT_OK, NULL, 10, &n), RMQ_RESULT_LENGTH_MISMATCH);
    CHECK(strcmp(rmq_result_java_exception(RMQ_RESULT_EMPTY_QUEUE_LIST), "IllegalArgumentException") == 0);
    CHECK(strcmp(rmq_result_java_exception(RMQ_RESULT_CONSUME_IDCS_UNSET), "NullPointerException") == 0);
    CHECK(rmq_result_java_exception(4242) == NULL);
}

/* The last error of this thread: the core's full text, read again after a small buffer. */
static const char *last_message(void) {
    static char buf[512];
    size_t n = 0;
    CHECK_OK(rmq_last_error_message(buf, sizeof buf, &n));
    CHECK(n == strlen(buf));
    return buf;
}

static void *fail_on_other_thread(void *arg) {
    (void)arg;
    rmq_strategy *s = NULL;
    CHECK_RC(rmq_strategy_from_config("other_thread_name", NULL, &s), RMQ_RESULT_UNKNOWN_STRATEGY);
    CHECK(strstr(last_message(), "other_thread_name") != NULL);
    return NULL;
}

static void test_last_error(void) {
    rmq_strategy *s = NULL;
    /* Which parameter, and why: the generic code text cannot say it; the core's message does. */
    CHECK_RC(rmq_strategy_from_config("consistent_hash", "{\"virtual_node_count\": \"ten\"}", &s), RMQ_RESULT_INVALID_PARAMETERS);
    CHECK(rmq_last_error_code() == RMQ_RESULT_INVALID_PARAMETERS);
    CHECK(strstr(last_message(), "virtual_node_count") != NULL);
    CHECK(strcmp(rmq_last_error_java_exception(), "IllegalArgumentException") == 0);
    /* Too small a buffer: the length needed, and the text is still there for the retry. */
    char tiny[4] = "abc";
    size_t n = 0;
    CHECK_RC(rmq_last_error_message(tiny, sizeof tiny, &n), RMQ_RESULT_BUFFER_TOO_SMALL);
    CHECK(n == strlen(last_message()) + 1 && strcmp(tiny, "abc") == 0);
    /* A success leaves it alone (errno-like); a failure only C can cause has its code's text. */
    CHECK_OK(rmq_strategy_from_config("AVG", NULL, &s));
    CHECK(strstr(last_message(), "virtual_node_count") != NULL);
    rmq_strategy_free(s);
    CHECK_RC(rmq_strategy_from_config(NULL, NULL, &s), RMQ_RESULT_NULL_PARAMETER);
    CHECK(strcmp(last_message(), "a required pointer argument was NULL") == 0);
    /* The core's exception for the error, not a per-code guess. */
    rmq_queue_list *idc_queues = queues_of("T", "hz@broker-a", 1);
    const char *ids[] = {"c1"};
    rmq_queue_list *mine = NULL;
    CHECK_OK(rmq_strategy_by_machine_room_new(NULL, 0, &s));
    CHECK_RC(rmq_strategy_allocate(s, "g", "c1", idc_queues, ids, 1, &mine), RMQ_RESULT_CONSUME_IDCS_UNSET);
    CHECK(strcmp(rmq_last_error_java_exception(), "NullPointerException") == 0);
    CHECK(strcmp(last_message(), "consumeridcs is null") == 0);
    rmq_strategy_free(s);
    rmq_queue_list_free(idc_queues);
    /* Per thread: another thread's failure does not replace this one's. */
    pthread_t other;
    CHECK(pthread_create(&other, NULL, fail_on_other_thread, NULL) == 0);
    pthread_join(other, NULL);
    CHECK(strcmp(last_message(), "consumeridcs is null") == 0);
}

/* One call with every string in a table: the same answer as the list form, sorted on request,
 * rooms as data, and every malformed table refused. */
static void test_packed(void) {
    /* offsets: g 0, c1 2, T 5, b 7, c2 9, hz 12, sh 15, bad\xff 18 */
    static const char table[] = "g\0c1\0T\0b\0c2\0hz\0sh\0bad\xff\0";
    const uint32_t topics[] = {5, 5, 5, 5}, brokers[] = {7, 7, 7, 7}, clients[] = {9, 2};
    const int32_t ids[] = {3, 2, 1, 0};
    size_t positions[4], n = 0;
    rmq_strategy *s = NULL;
    CHECK_OK(rmq_strategy_averagely_new(&s));
    /* As given: c2, c1; AVG gives index 1 (c1) the second half of [3, 2, 1, 0]: positions 2, 3. */
    CHECK_OK(rmq_strategy_allocate_packed(s, table, sizeof table, 0, 2, topics, brokers, ids, 4, clients, 2, NULL, NULL, 0, positions, 4, &n));
    CHECK(n == 2 && positions[0] == 2 && positions[1] == 3);
    /* Sorted first (queues 0..3, ids c1, c2): c1 is index 0 and gets queue ids 0, 1, which are
     * the caller's positions 3 and 2, in Java's order. */
    CHECK_OK(rmq_strategy_allocate_packed(s, table, sizeof table, 0, 2, topics, brokers, ids, 4, clients, 2, NULL, NULL, RMQ_PACKED_SORT, positions, 4, &n));
    CHECK(n == 2 && positions[0] == 3 && positions[1] == 2);
    /* Rooms as data: queues in hz, c2 in hz, c1 in sh: hz's queues go to c2, c1 gets none. */
    const uint32_t queue_rooms[] = {12, 12, 12, 12}, client_rooms[] = {12, 15};
    CHECK_OK(rmq_strategy_allocate_packed(s, table, sizeof table, 0, 2, topics, brokers, ids, 4, clients, 2, queue_rooms, client_rooms, 0, positions, 4, &n));
    CHECK(n == 0);
    const uint32_t no_room[] = {RMQ_NO_STRING, 12, 12, 12};
    CHECK_RC(rmq_strategy_allocate_packed(s, table, sizeof table, 0, 2, topics, brokers, ids, 4, clients, 2, no_room, client_rooms, 0, positions, 4, &n),
             RMQ_RESULT_NO_MACHINE_ROOM_FOR_QUEUE);
    CHECK_RC(rmq_strategy_allocate_packed(s, table, sizeof table, 0, 2, topics, brokers, ids, 4, clients, 2, queue_rooms, NULL, 0, positions, 4, &n),
             RMQ_RESULT_NULL_PARAMETER);
    /* Malformed: an offset past the table, a string without its NUL, invalid UTF-8, bad flags. */
    CHECK_RC(rmq_strategy_allocate_packed(s, table, sizeof table, 999, 2, topics, brokers, ids, 4, clients, 2, NULL, NULL, 0, positions, 4, &n),
             RMQ_RESULT_OUT_OF_RANGE);
    CHECK_RC(rmq_strategy_allocate_packed(s, table, 3, 0, 2, topics, brokers, ids, 4, clients, 2, NULL, NULL, 0, positions, 4, &n), RMQ_RESULT_OUT_OF_RANGE);
    const uint32_t bad_client[] = {18};
    CHECK_RC(rmq_strategy_allocate_packed(s, table, sizeof table, 0, 2, topics, brokers, ids, 4, bad_client, 1, NULL, NULL, 0, positions, 4, &n),
             RMQ_RESULT_INVALID_UTF8);
    CHECK_RC(rmq_strategy_allocate_packed(s, table, sizeof table, 0, 2, topics, brokers, ids, 4, clients, 2, NULL, NULL, 2, positions, 4, &n), RMQ_RESULT_OUT_OF_RANGE);
    CHECK_RC(rmq_strategy_allocate_packed(s, table, sizeof table, 0, 2, topics, brokers, ids, 4, clients, 2, NULL, NULL, 0, positions, 1, &n), RMQ_RESULT_BUFFER_TOO_SMALL);
    CHECK(n == 2);
    CHECK_RC(rmq_strategy_allocate_packed(s, table, sizeof table, 0, 2, NULL, brokers, ids, 4, clients, 2, NULL, NULL, 0, positions, 4, &n), RMQ_RESULT_LENGTH_MISMATCH);
    CHECK_RC(rmq_strategy_allocate_packed(s, table, sizeof table, 0, 2, topics, brokers, ids, 0, clients, 2, NULL, NULL, 0, positions, 4, &n), RMQ_RESULT_EMPTY_QUEUE_LIST);
    rmq_strategy_free(s);
}

static void test_queue_list_errors(void) {
    rmq_queue_list *list = NULL;
    CHECK_RC(rmq_queue_list_new(NULL), RMQ_RESULT_NULL_PARAMETER);
    CHECK_OK(rmq_queue_list_new(&list));
    CHECK_RC(rmq_queue_list_push(NULL, "T", "b", 0), RMQ_RESULT_NULL_PARAMETER);
    CHECK_RC(rmq_queue_list_push(list, NULL, "b", 0), RMQ_RESULT_NULL_PARAMETER);
    CHECK_RC(rmq_queue_list_push(list, "T", "\xff\xfe", 0), RMQ_RESULT_INVALID_UTF8);
    CHECK(rmq_queue_list_len(list) == 0); /* failed pushes added nothing */
    CHECK_OK(rmq_queue_list_push(list, "T", "b", -7));
    const char *topic = "unchanged";
    CHECK_RC(rmq_queue_list_get(list, 1, &topic, NULL, NULL), RMQ_RESULT_OUT_OF_RANGE);
    CHECK(strcmp(topic, "unchanged") == 0);
    CHECK(queue_id_at(list, 0) == -7);
    CHECK(rmq_queue_list_len(NULL) == 0);
    CHECK_RC(rmq_queue_list_sort(NULL), RMQ_RESULT_NULL_PARAMETER);
    rmq_queue_list_free(list);
    rmq_queue_list_free(NULL);
    rmq_strategy_free(NULL);
    rmq_group_allocation_free(NULL);
    rmq_rebalancer_free(NULL);
    rmq_round_report_free(NULL);
    rmq_round_report_list_free(NULL);
}

/* U+1F600 is a surrogate pair (D83D DE00) in UTF-16, so Java sorts it before U+FF61; strcmp on
 * UTF-8 bytes (F0.. vs EF..) sorts it after. */
#define EMOJI "\xF0\x9F\x98\x80"
#define HALFWIDTH "\xEF\xBD\xA1"

static void test_java_order(void) {
    const char *ids[] = {"c2", HALFWIDTH, "c10", EMOJI, "c1"};
    CHECK_OK(rmq_sort_client_ids(ids, COUNT(ids)));
    const char *expected[] = {"c1", "c10", "c2", EMOJI, HALFWIDTH};
    for (size_t i = 0; i < COUNT(ids); i++) CHECK(strcmp(ids[i], expected[i]) == 0);
    int32_t cmp = 0;
    CHECK_OK(rmq_compare_strings(EMOJI, HALFWIDTH, &cmp));
    CHECK(cmp < 0 && strcmp(EMOJI, HALFWIDTH) > 0);
    const char *bad[] = {"a", "\xc3\x28"};
    CHECK_RC(rmq_sort_client_ids(bad, 2), RMQ_RESULT_INVALID_UTF8);
    CHECK(strcmp(bad[0], "a") == 0); /* untouched on failure */
    CHECK_RC(rmq_sort_client_ids(NULL, 2), RMQ_RESULT_LENGTH_MISMATCH);
    CHECK_OK(rmq_sort_client_ids(NULL, 0));

    /* Queues: topic, then broker (UTF-16 order), then queue id. */
    rmq_queue_list *list = NULL;
    CHECK_OK(rmq_queue_list_new(&list));
    CHECK_OK(rmq_queue_list_push(list, "T", HALFWIDTH, 1));
    CHECK_OK(rmq_queue_list_push(list, "T", EMOJI, 2));
    CHECK_OK(rmq_queue_list_push(list, "S", "z", 3));
    CHECK_OK(rmq_queue_list_push(list, "T", EMOJI, 0));
    CHECK_OK(rmq_queue_list_sort(list));
    int32_t order[] = {3, 0, 2, 1};
    for (size_t i = 0; i < 4; i++) CHECK(queue_id_at(list, i) == order[i]);
    rmq_queue_list_free(list);
}

static void test_id_list(void) {
    const char *ids[] = {"c2", EMOJI, "c1", HALFWIDTH};
    rmq_id_list *list = NULL;
    const char *bad[] = {"ok", "\xff"};
    CHECK_RC(rmq_id_list_new(bad, 2, &list), RMQ_RESULT_INVALID_UTF8);
    CHECK_RC(rmq_id_list_new(NULL, 1, &list), RMQ_RESULT_LENGTH_MISMATCH);
    CHECK(list == NULL);
    CHECK_OK(rmq_id_list_new(ids, 4, &list));
    CHECK(rmq_id_list_len(list) == 4 && rmq_id_list_len(NULL) == 0);
    CHECK_OK(rmq_id_list_sort(list));
    const char *expected[] = {"c1", "c2", EMOJI, HALFWIDTH};
    for (size_t i = 0; i < 4; i++) {
        const char *id = NULL;
        CHECK_OK(rmq_id_list_get(list, i, &id));
        CHECK(strcmp(id, expected[i]) == 0);
    }
    const char *id = NULL;
    CHECK_RC(rmq_id_list_get(list, 4, &id), RMQ_RESULT_OUT_OF_RANGE);
    /* 8 queues, 4 ids, AVG: c2 (second in Java order) gets queues 2 and 3. */
    rmq_strategy *s = NULL;
    CHECK_OK(rmq_strategy_averagely_new(&s));
    rmq_queue_list *queues = queues_of("T", "b", 8);
    size_t positions[8], n = 0;
    CHECK_OK(rmq_strategy_allocate_positions_ids(s, "g", "c2", queues, list, positions, 8, &n));
    CHECK(n == 2 && positions[0] == 2 && positions[1] == 3);
    CHECK_RC(rmq_strategy_allocate_positions_ids(s, "g", "c2", queues, NULL, positions, 8, &n), RMQ_RESULT_NULL_PARAMETER);
    rmq_queue_list_free(queues);
    rmq_strategy_free(s);
    rmq_id_list_free(list);
    rmq_id_list_free(NULL);
}

static void test_strategy_errors(void) {
    rmq_strategy *s = NULL;
    CHECK_RC(rmq_strategy_from_config("nope", NULL, &s), RMQ_RESULT_UNKNOWN_STRATEGY);
    CHECK_RC(rmq_strategy_from_config("consistent_hash", "{not json", &s), RMQ_RESULT_INVALID_PARAMETERS);
    CHECK_RC(rmq_strategy_from_config("consistent_hash", "{\"virtual_node_count\": \"ten\"}", &s), RMQ_RESULT_INVALID_PARAMETERS);
    CHECK_RC(rmq_strategy_from_config("consistent_hash", "{\"virtual_node_count\": -1}", &s), RMQ_RESULT_ILLEGAL_VIRTUAL_NODE_COUNT);
    CHECK_RC(rmq_strategy_consistent_hash_new(-5, &s), RMQ_RESULT_ILLEGAL_VIRTUAL_NODE_COUNT);
    CHECK_RC(rmq_strategy_from_config(NULL, NULL, &s), RMQ_RESULT_NULL_PARAMETER);
    CHECK_RC(rmq_strategy_from_config("\xff", NULL, &s), RMQ_RESULT_INVALID_UTF8);
    CHECK_RC(rmq_strategy_averagely_new(NULL), RMQ_RESULT_NULL_PARAMETER);
    CHECK(s == NULL); /* no failed call wrote its out-parameter */
    CHECK(rmq_strategy_name(NULL) == NULL);

    CHECK_OK(rmq_strategy_from_config("AVG", NULL, &s));
    CHECK(strcmp(rmq_strategy_name(s), "AVG") == 0);
    rmq_queue_list *queues = queues_of("T", "b", 8);
    const char *ids[] = {"c1", "c2", "c3"};
    rmq_queue_list *mine = NULL;
    CHECK_RC(rmq_strategy_allocate(s, "g", "", queues, ids, 3, &mine), RMQ_RESULT_EMPTY_CURRENT_ID);
    CHECK_RC(rmq_strategy_allocate(s, "g", "c1", queues, NULL, 0, &mine), RMQ_RESULT_EMPTY_CLIENT_ID_LIST);
    CHECK_RC(rmq_strategy_allocate(s, "g", "c1", queues, NULL, 3, &mine), RMQ_RESULT_LENGTH_MISMATCH);
    CHECK_RC(rmq_strategy_allocate(s, "g", "c1", queues, ids, (size_t)1 << 40, &mine), RMQ_RESULT_TOO_LARGE);
    const char *with_null[] = {"c1", NULL};
    CHECK_RC(rmq_strategy_allocate(s, "g", "c1", queues, with_null, 2, &mine), RMQ_RESULT_NULL_PARAMETER);
    const char *bad_utf8[] = {"c1", "\xe2\x82"};
    CHECK_RC(rmq_strategy_allocate(s, "g", "c1", queues, bad_utf8, 2, &mine), RMQ_RESULT_INVALID_UTF8);
    CHECK_RC(rmq_strategy_allocate(s, "g", "c1", NULL, ids, 3, &mine), RMQ_RESULT_NULL_PARAMETER);
    CHECK_RC(rmq_strategy_allocate(s, NULL, "c1", queues, ids, 3, &mine), RMQ_RESULT_NULL_PARAMETER);
    CHECK_RC(rmq_strategy_allocate(s, "g", "c1", queues, ids, 3, NULL), RMQ_RESULT_NULL_PARAMETER);
    CHECK(mine == NULL);

    /* 8 queues, 3 ids: AVG gives c1 the first ceil(8/3) = 3. */
    CHECK_OK(rmq_strategy_allocate(s, "g", "c1", queues, ids, 3, &mine));
    CHECK(rmq_queue_list_len(mine) == 3 && queue_id_at(mine, 2) == 2);
    rmq_queue_list_free(mine);
    /* An id not in the list gets nothing (Java logs [BUG] and returns an empty list). */
    CHECK_OK(rmq_strategy_allocate(s, "g", "stranger", queues, ids, 3, &mine));
    CHECK(mine != NULL && rmq_queue_list_len(mine) == 0);
    rmq_queue_list_free(mine);

    size_t positions[2], n = 0;
    CHECK_RC(rmq_strategy_allocate_positions(s, "g", "c1", queues, ids, 3, positions, 2, &n), RMQ_RESULT_BUFFER_TOO_SMALL);
    CHECK(n == 3);
    CHECK_RC(rmq_strategy_allocate_positions(s, "g", "c1", queues, ids, 3, NULL, 2, &n), RMQ_RESULT_LENGTH_MISMATCH);
    size_t all[8];
    CHECK_OK(rmq_strategy_allocate_positions(s, "g", "c3", queues, ids, 3, all, 8, &n));
    CHECK(n == 2 && all[0] == 6 && all[1] == 7);
    rmq_strategy_free(s);

    /* CONFIG: a NULL list is Java's null; its own list is not positions of the input. */
    CHECK_OK(rmq_strategy_by_config_new(NULL, &s));
    mine = (rmq_queue_list *)1;
    CHECK_OK(rmq_strategy_allocate(s, "g", "c1", queues, ids, 3, &mine));
    CHECK(mine == NULL);
    CHECK_RC(rmq_strategy_allocate_positions(s, "g", "c1", queues, ids, 3, all, 8, &n), RMQ_RESULT_NO_CONFIGURED_QUEUES);
    rmq_strategy_free(s);
    rmq_queue_list *config = queues_of("Other", "x", 2);
    CHECK_OK(rmq_strategy_by_config_new(config, &s));
    rmq_queue_list_free(config); /* copied */
    CHECK_OK(rmq_strategy_allocate(s, "g", "anyone", queues, NULL, 0, &mine));
    const char *topic;
    CHECK_OK(rmq_queue_list_get(mine, 1, &topic, NULL, NULL));
    CHECK(rmq_queue_list_len(mine) == 2 && strcmp(topic, "Other") == 0);
    rmq_queue_list_free(mine);
    CHECK_RC(rmq_strategy_allocate_positions(s, "g", "c1", queues, ids, 3, all, 8, &n), RMQ_RESULT_NOT_POSITIONAL);
    rmq_strategy_free(s);

    /* MACHINE_ROOM: unset idc set meets an idc@broker name -> Java's NullPointerException. */
    rmq_queue_list *idc_queues = queues_of("T", "hz@broker-a", 2);
    CHECK_OK(rmq_strategy_by_machine_room_new(NULL, 0, &s));
    CHECK_RC(rmq_strategy_allocate(s, "g", "c1", idc_queues, ids, 3, &mine), RMQ_RESULT_CONSUME_IDCS_UNSET);
    rmq_strategy_free(s);
    const char *idcs[] = {"hz"};
    CHECK_OK(rmq_strategy_by_machine_room_new(idcs, 1, &s));
    CHECK_OK(rmq_strategy_allocate(s, "g", "c1", idc_queues, ids, 3, &mine));
    CHECK(rmq_queue_list_len(mine) == 1);
    rmq_queue_list_free(mine);
    rmq_strategy_free(s);
    rmq_queue_list_free(idc_queues);
    rmq_queue_list_free(queues);
}

/* BALANCED_STICKY_V2's typed constructor: every misuse, names carrying the parameters, the caps
 * (worked out by hand: 10 queues over 3 members, overload 0 and underload 0 give totals 3 or 4). */
static void test_balanced_sticky_v2(void) {
    rmq_strategy *s = NULL;
    const int64_t o = RMQ_BALANCED_STICKY_V2_DEFAULT_OVERLOAD_PERCENT, u = RMQ_BALANCED_STICKY_V2_DEFAULT_UNDERLOAD_PERCENT;
    CHECK_RC(rmq_strategy_balanced_sticky_v2_new(3, NULL, o, u, &s), RMQ_RESULT_OUT_OF_RANGE);
    CHECK_RC(rmq_strategy_balanced_sticky_v2_new(RMQ_STABLE_KEY_BEFORE, NULL, o, u, &s), RMQ_RESULT_INVALID_PARAMETERS);
    CHECK_RC(rmq_strategy_balanced_sticky_v2_new(RMQ_STABLE_KEY_HOST, "#", o, u, &s), RMQ_RESULT_INVALID_PARAMETERS);
    CHECK_RC(rmq_strategy_balanced_sticky_v2_new(RMQ_STABLE_KEY_HOST, NULL, -1, u, &s), RMQ_RESULT_INVALID_PARAMETERS);
    CHECK(strstr(last_message(), "overload_percent -1") != NULL);
    CHECK_RC(rmq_strategy_balanced_sticky_v2_new(RMQ_STABLE_KEY_HOST, NULL, o, 101, &s), RMQ_RESULT_INVALID_PARAMETERS);
    CHECK_RC(rmq_strategy_balanced_sticky_v2_new(RMQ_STABLE_KEY_HOST, NULL, o, u, NULL), RMQ_RESULT_NULL_PARAMETER);
    CHECK(s == NULL);

    CHECK_OK(rmq_strategy_balanced_sticky_v2_new(RMQ_STABLE_KEY_CLIENT_ID, NULL, o, u, &s));
    CHECK(strcmp(rmq_strategy_name(s), "BALANCED_STICKY_V2") == 0);
    rmq_strategy_free(s);
    CHECK_OK(rmq_strategy_balanced_sticky_v2_new(RMQ_STABLE_KEY_BEFORE, "#", 0, 0, &s));
    CHECK(strcmp(rmq_strategy_name(s), "BALANCED_STICKY_V2-before:#-overload:0-underload:0") == 0);
    rmq_strategy *from_config = NULL;
    CHECK_OK(rmq_strategy_from_config("balanced_sticky_v2", "{\"stable_key\": {\"before\": \"#\"}, \"overload_percent\": 0, \"underload_percent\": 0}", &from_config));
    CHECK(strcmp(rmq_strategy_name(s), rmq_strategy_name(from_config)) == 0);
    rmq_queue_list *queues = queues_of("T", "b", 10);
    const char *ids[] = {"10.0.0.2@7#1", "10.0.0.1@5#1", "10.0.0.3@5#1"};
    size_t total = 0;
    for (size_t m = 0; m < 3; m++) {
        size_t positions[10], n = 0, n2 = 0;
        CHECK_OK(rmq_strategy_allocate_positions(s, "g", ids[m], queues, ids, 3, positions, 10, &n));
        CHECK(n == 3 || n == 4);
        CHECK_OK(rmq_strategy_allocate_positions(from_config, "g", ids[m], queues, ids, 3, positions, 10, &n2));
        CHECK(n2 == n);
        total += n;
    }
    CHECK(total == 10);
    rmq_queue_list_free(queues);
    rmq_strategy_free(from_config);
    rmq_strategy_free(s);
}

/* BALANCED_STICKY's typed constructor: every misuse, names carrying the parameters, weights. */
static void test_balanced_sticky(void) {
    rmq_strategy *s = NULL;
    const char *keys[] = {"10.0.0.1", "10.0.0.2", "10.0.0.1"};
    uint32_t weights[] = {3, 0, 2};
    CHECK_RC(rmq_strategy_balanced_sticky_new(3, NULL, NULL, NULL, 0, &s), RMQ_RESULT_OUT_OF_RANGE);
    CHECK_RC(rmq_strategy_balanced_sticky_new(RMQ_STABLE_KEY_BEFORE, NULL, NULL, NULL, 0, &s), RMQ_RESULT_INVALID_PARAMETERS);
    CHECK_RC(rmq_strategy_balanced_sticky_new(RMQ_STABLE_KEY_HOST, "#", NULL, NULL, 0, &s), RMQ_RESULT_INVALID_PARAMETERS);
    CHECK_RC(rmq_strategy_balanced_sticky_new(RMQ_STABLE_KEY_HOST, NULL, NULL, weights, 1, &s), RMQ_RESULT_LENGTH_MISMATCH);
    CHECK_RC(rmq_strategy_balanced_sticky_new(RMQ_STABLE_KEY_HOST, NULL, keys, weights, 2, &s), RMQ_RESULT_INVALID_PARAMETERS); /* weight 0 */
    CHECK_RC(rmq_strategy_balanced_sticky_new(RMQ_STABLE_KEY_HOST, NULL, keys + 2, weights + 2, 1, NULL), RMQ_RESULT_NULL_PARAMETER);
    const char *twice[] = {"10.0.0.1", "10.0.0.1"};
    CHECK_RC(rmq_strategy_balanced_sticky_new(RMQ_STABLE_KEY_HOST, NULL, twice, weights, 2, &s), RMQ_RESULT_INVALID_PARAMETERS);
    CHECK(s == NULL);

    CHECK_OK(rmq_strategy_balanced_sticky_new(RMQ_STABLE_KEY_CLIENT_ID, NULL, NULL, NULL, 0, &s));
    CHECK(strcmp(rmq_strategy_name(s), "BALANCED_STICKY") == 0);
    rmq_strategy_free(s);
    CHECK_OK(rmq_strategy_balanced_sticky_new(RMQ_STABLE_KEY_BEFORE, "#", NULL, NULL, 0, &s));
    CHECK(strcmp(rmq_strategy_name(s), "BALANCED_STICKY-before:#") == 0);
    rmq_strategy_free(s);

    /* Weighted by host, 10.0.0.1 weighing 3: of 8 queues, 6 and 2 (shares 6 and 2 exactly). */
    CHECK_OK(rmq_strategy_balanced_sticky_new(RMQ_STABLE_KEY_HOST, NULL, keys + 2, (const uint32_t[]){3}, 1, &s));
    CHECK(strncmp(rmq_strategy_name(s), "BALANCED_STICKY-host-weights:", 29) == 0);
    rmq_strategy *from_config = NULL;
    CHECK_OK(rmq_strategy_from_config("balanced_sticky", "{\"stable_key\": \"host\", \"weights\": {\"10.0.0.1\": 3}}", &from_config));
    CHECK(strcmp(rmq_strategy_name(s), rmq_strategy_name(from_config)) == 0);
    rmq_queue_list *queues = queues_of("T", "b", 8);
    const char *ids[] = {"10.0.0.2@7", "10.0.0.1@5"};
    size_t positions[8], n = 0;
    CHECK_OK(rmq_strategy_allocate_positions(s, "g", "10.0.0.1@5", queues, ids, 2, positions, 8, &n));
    CHECK(n == 6);
    CHECK_OK(rmq_strategy_allocate_positions(from_config, "g", "10.0.0.2@7", queues, ids, 2, positions, 8, &n));
    CHECK(n == 2);
    rmq_queue_list_free(queues);
    rmq_strategy_free(from_config);
    rmq_strategy_free(s);
}

/* A resolver whose behaviour the test picks through user_data. */
enum resolver_mode { ROOMS_OK, ROOMS_FAIL, ROOMS_NULL, ROOMS_BAD_UTF8 };
typedef struct {
    enum resolver_mode mode;
    int *freed;
} resolver_state;

static int32_t test_broker_room(void *ud, const char *topic, const char *broker, int32_t qid, const char **room) {
    (void)topic;
    (void)qid;
    resolver_state *st = ud;
    switch (st->mode) {
    case ROOMS_FAIL: return 42;
    case ROOMS_NULL: *room = NULL; return 0;
    case ROOMS_BAD_UTF8: *room = "\xff"; return 0;
    default: *room = strncmp(broker, "hz", 2) == 0 ? "hz" : "sh"; return 0;
    }
}

static int32_t test_consumer_room(void *ud, const char *client_id, const char **room) {
    (void)ud;
    *room = strncmp(client_id, "hz", 2) == 0 ? "hz" : "sh";
    return 0;
}

static void count_free(void *ud) {
    (*((resolver_state *)ud)->freed)++;
}

static void test_resolver(void) {
    int freed = 0;
    resolver_state st = {ROOMS_OK, &freed};
    rmq_strategy *inner = NULL, *s = NULL;
    CHECK_OK(rmq_strategy_averagely_new(&inner));
    rmq_machine_room_resolver missing = {&st, test_broker_room, NULL, count_free};
    CHECK_RC(rmq_strategy_machine_room_nearby_new(inner, &missing, &s), RMQ_RESULT_NULL_PARAMETER);
    CHECK(freed == 0); /* the caller still owns user_data after a failure */
    rmq_machine_room_resolver resolver = {&st, test_broker_room, test_consumer_room, count_free};
    CHECK_OK(rmq_strategy_machine_room_nearby_new(inner, &resolver, &s));
    rmq_strategy_free(inner); /* shared with the nearby strategy */
    CHECK(strcmp(rmq_strategy_name(s), "MACHINE_ROOM_NEARBY-AVG") == 0);

    rmq_queue_list *queues = queues_of("T", "hz-b", 4);
    const char *ids[] = {"hz@1", "sh@1"};
    rmq_queue_list *mine = NULL;
    /* All queues are in hz and hz has a consumer: hz@1 gets all four, sh@1 none. */
    CHECK_OK(rmq_strategy_allocate(s, "g", "hz@1", queues, ids, 2, &mine));
    CHECK(rmq_queue_list_len(mine) == 4);
    rmq_queue_list_free(mine);
    st.mode = ROOMS_FAIL;
    CHECK_RC(rmq_strategy_allocate(s, "g", "hz@1", queues, ids, 2, &mine), RMQ_RESULT_CALLBACK_FAILED);
    st.mode = ROOMS_NULL;
    CHECK_RC(rmq_strategy_allocate(s, "g", "hz@1", queues, ids, 2, &mine), RMQ_RESULT_NO_MACHINE_ROOM_FOR_QUEUE);
    st.mode = ROOMS_BAD_UTF8;
    CHECK_RC(rmq_strategy_allocate(s, "g", "hz@1", queues, ids, 2, &mine), RMQ_RESULT_CALLBACK_FAILED);
    rmq_queue_list_free(queues);
    CHECK(freed == 0);
    rmq_strategy_free(s);
    CHECK(freed == 1); /* freed once, with the strategy */
}

static void test_group_view(void) {
    rmq_strategy *s = NULL;
    CHECK_OK(rmq_strategy_averagely_new(&s));
    rmq_queue_list *queues = queues_of("T", "b", 8);
    const char *three[] = {"a", "b", "c"};
    const char *four[] = {"a", "b", "c", "d"};
    rmq_group_allocation *before = NULL, *after = NULL;
    CHECK_OK(rmq_strategy_allocate_group(s, "g", queues, three, 3, &before));
    CHECK_OK(rmq_strategy_allocate_group(s, "g", queues, four, 4, &after));
    CHECK(rmq_group_allocation_member_count(before) == 3 && rmq_group_allocation_member_count(after) == 4);
    const char *id = NULL;
    rmq_queue_list *share = NULL;
    CHECK_OK(rmq_group_allocation_member(before, 2, &id, &share));
    CHECK(strcmp(id, "c") == 0 && rmq_queue_list_len(share) == 2 && queue_id_at(share, 0) == 6);
    rmq_queue_list_free(share);
    CHECK_RC(rmq_group_allocation_member(before, 3, &id, &share), RMQ_RESULT_OUT_OF_RANGE);

    rmq_verification v;
    CHECK_OK(rmq_group_allocation_verify(before, &v));
    CHECK(v.is_partition && v.orphaned == 0 && v.double_owned == 0);
    /* AVG, 8 queues: a 0-2, b 3-5, c 6-7 -> a 0-1, b 2-3, c 4-5, d 6-7. Queues 2, 4, 5, 6, 7
     * change owner: 5 of 8. */
    rmq_movement m;
    CHECK_OK(rmq_group_allocation_movement(before, after, &m));
    CHECK(m.moved == 5 && m.common == 8 && m.appeared == 0 && m.disappeared == 0);
    CHECK_RC(rmq_group_allocation_movement(before, NULL, &m), RMQ_RESULT_NULL_PARAMETER);

    /* A duplicated id takes the same share twice: not a partition. */
    const char *dup[] = {"a", "a", "b"};
    rmq_group_allocation *dupview = NULL;
    CHECK_OK(rmq_strategy_allocate_group(s, "g", queues, dup, 3, &dupview));
    CHECK_OK(rmq_group_allocation_verify(dupview, &v));
    CHECK(!v.is_partition && v.duplicate_client_ids == 1 && v.orphaned == 3);
    rmq_group_allocation_free(dupview);

    /* The experimental BALANCED_STICKY through its config name: a partition, 3/3/2, and one
     * member's answer equals its group share whatever the id order. */
    rmq_strategy *sticky = NULL;
    CHECK_OK(rmq_strategy_from_config("balanced_sticky", "{\"stable_key\": \"host\"}", &sticky));
    CHECK(strcmp(rmq_strategy_name(sticky), "BALANCED_STICKY-host") == 0);
    rmq_group_allocation *sv = NULL;
    CHECK_OK(rmq_strategy_allocate_group(sticky, "g", queues, three, 3, &sv));
    CHECK_OK(rmq_group_allocation_verify(sv, &v));
    CHECK(v.is_partition);
    const char *reversed[] = {"c", "b", "a"};
    for (size_t i = 0; i < 3; i++) {
        const char *member = NULL;
        rmq_queue_list *member_share = NULL, *mine = NULL;
        CHECK_OK(rmq_group_allocation_member(sv, i, &member, &member_share));
        CHECK(rmq_queue_list_len(member_share) == 2 || rmq_queue_list_len(member_share) == 3);
        CHECK_OK(rmq_strategy_allocate(sticky, "g", member, queues, reversed, 3, &mine));
        CHECK(rmq_queue_list_len(mine) == rmq_queue_list_len(member_share));
        rmq_queue_list_free(mine);
        rmq_queue_list_free(member_share);
    }
    rmq_group_allocation_free(sv);
    rmq_strategy_free(sticky);
    rmq_group_allocation_free(before);
    rmq_group_allocation_free(after);
    rmq_queue_list_free(queues);
    rmq_strategy_free(s);
}

/* ---- Threads: one strategy shared by many allocating threads gives what one thread gets. ---- */

#define THREADS 8
#define ROUNDS 300
#define MEMBERS 7

typedef struct {
    const rmq_strategy *strategy;
    const rmq_queue_list *queues;
    const char **ids;
    size_t (*expected)[64];
    size_t *expected_len;
    int mismatches;
} thread_job;

static void *allocate_many(void *arg) {
    thread_job *job = arg;
    size_t positions[64], n;
    for (int round = 0; round < ROUNDS; round++) {
        for (size_t m = 0; m < MEMBERS; m++) {
            rmq_result rc = rmq_strategy_allocate_positions(job->strategy, "g", job->ids[m], job->queues, job->ids, MEMBERS, positions, 64, &n);
            if (rc != RMQ_RESULT_OK || n != job->expected_len[m] || memcmp(positions, job->expected[m], n * sizeof(size_t)) != 0) job->mismatches++;
        }
    }
    return NULL;
}

static void test_threads(void) {
    const char *names[] = {"averagely", "circle", "consistent_hash"};
    const char *ids[MEMBERS] = {"c1", "c2", "c3", "c4", "c5", "c6", "c7"};
    rmq_queue_list *queues = queues_of("T", "b", 64);
    for (size_t k = 0; k < COUNT(names); k++) {
        rmq_strategy *s = NULL;
        CHECK_OK(rmq_strategy_from_config(names[k], NULL, &s));
        size_t expected[MEMBERS][64], expected_len[MEMBERS];
        for (size_t m = 0; m < MEMBERS; m++)
            CHECK_OK(rmq_strategy_allocate_positions(s, "g", ids[m], queues, ids, MEMBERS, expected[m], 64, &expected_len[m]));
        pthread_t threads[THREADS];
        thread_job jobs[THREADS];
        for (int t = 0; t < THREADS; t++) {
            jobs[t] = (thread_job){s, queues, ids, expected, expected_len, 0};
            CHECK(pthread_create(&threads[t], NULL, allocate_many, &jobs[t]) == 0);
        }
        for (int t = 0; t < THREADS; t++) {
            pthread_join(threads[t], NULL);
            CHECK(jobs[t].mismatches == 0);
        }
        rmq_strategy_free(s);
    }
    rmq_queue_list_free(queues);
}

int main(void) {
    test_version();
    test_messages();
    test_last_error();
    test_packed();
    test_queue_list_errors();
    test_java_order();
    test_strategy_errors();
    test_balanced_sticky();
    test_balanced_sticky_v2();
    test_id_list();
    test_resolver();
    test_group_view();
    test_threads();
    return check_report("test_api");
}
