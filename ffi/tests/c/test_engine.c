/*
 * The rebalance engine driven by C callbacks: an in-memory broker and offset store, callbacks
 * that fail, unknown routes, renewal, the all-topics round and clean-up, shutdown and re-entry.
 */
#include <stdint.h>

#include "check.h"

typedef struct {
    int lock_fail;          /* lock returns this when non-zero */
    int persist_fail_queue; /* persist_offset fails for this queue id (-1: never) */
    int locked[16];         /* broker lock table: 1 when this client holds queue i */
    int64_t committed[16];  /* -1: no committed offset */
    int dispatched[16];     /* dispatch_pull calls per queue */
    int64_t dispatch_offset[16];
    int unlocks, persists, changes, lock_calls;
    rmq_rebalancer *self;   /* for the re-entry check */
    rmq_result reentry;
} fake_client;

static int32_t h_lock(void *ud, const char *broker, const rmq_queue *qs, size_t len, bool *locked) {
    fake_client *c = ud;
    (void)broker;
    c->lock_calls++;
    if (c->lock_fail) return c->lock_fail;
    for (size_t i = 0; i < len; i++) {
        c->locked[qs[i].queue_id] = 1;
        locked[i] = true;
    }
    return 0;
}

static int32_t h_unlock(void *ud, const char *broker, const rmq_queue *qs, size_t len) {
    fake_client *c = ud;
    (void)broker;
    for (size_t i = 0; i < len; i++) c->locked[qs[i].queue_id] = 0;
    c->unlocks += (int)len;
    return 0;
}

static int32_t h_read_offset(void *ud, const rmq_queue *q, uint32_t from, bool *found, int64_t *offset) {
    fake_client *c = ud;
    CHECK(from == RMQ_READ_FROM_STORE);
    *found = c->committed[q->queue_id] >= 0;
    if (*found) *offset = c->committed[q->queue_id];
    return 0;
}

static int32_t h_persist(void *ud, const rmq_queue *q) {
    fake_client *c = ud;
    if (q->queue_id == c->persist_fail_queue) return 9;
    c->persists++;
    return 0;
}

static int32_t h_max_offset(void *ud, const rmq_queue *q, int64_t *offset) {
    (void)ud;
    *offset = 1000 + q->queue_id;
    return 0;
}

static int32_t h_search_offset(void *ud, const rmq_queue *q, int64_t ts, int64_t *offset) {
    (void)ud;
    (void)q;
    *offset = ts;
    return 0;
}

static bool h_try_consume_lock(void *ud, const rmq_queue *q, uint64_t generation, uint64_t wait_ms) {
    (void)ud;
    (void)q;
    (void)generation;
    (void)wait_ms;
    return true;
}

static void h_dispatch(void *ud, const rmq_queue *q, int64_t offset, uint64_t delay_ms, uint64_t generation) {
    fake_client *c = ud;
    (void)delay_ms;
    CHECK(generation > 0);
    c->dispatched[q->queue_id]++;
    c->dispatch_offset[q->queue_id] = offset;
}

static void h_changed(void *ud, const char *topic, const rmq_queue_list *all, const rmq_queue_list *mine) {
    fake_client *c = ud;
    CHECK(strcmp(topic, "T") == 0 && rmq_queue_list_len(all) >= rmq_queue_list_len(mine));
    c->changes++;
    /* Calling the same rebalancer from its own callback must be refused, not deadlock. */
    rmq_queue_list *held = NULL;
    c->reentry = rmq_rebalancer_held(c->self, &held);
    rmq_queue_list_free(held);
}

static rmq_host host_for(fake_client *c) {
    rmq_host h = {0};
    h.user_data = c;
    h.lock = h_lock;
    h.unlock = h_unlock;
    h.read_offset = h_read_offset;
    h.persist_offset = h_persist;
    h.max_offset = h_max_offset;
    h.search_offset = h_search_offset;
    h.try_consume_lock = h_try_consume_lock;
    h.dispatch_pull = h_dispatch;
    h.queue_set_changed = h_changed;
    return h;
}

static rmq_round_summary summary_of(rmq_round_report *r) {
    rmq_round_summary s;
    memset(&s, 0xff, sizeof s);
    CHECK_OK(rmq_round_report_summary(r, &s));
    return s;
}

static char *json_of(const rmq_round_report *r) {
    size_t n = 0;
    CHECK_RC(rmq_round_report_to_json(r, NULL, 0, &n), RMQ_RESULT_BUFFER_TOO_SMALL);
    char *buf = malloc(n);
    CHECK_OK(rmq_round_report_to_json(r, buf, n, &n));
    return buf;
}

static void test_engine(void) {
    rmq_strategy *avg = NULL;
    CHECK_OK(rmq_strategy_averagely_new(&avg));
    rmq_rebalancer *r = NULL;
    CHECK_RC(rmq_rebalancer_new("{\"group\": \"g\"", avg, &r), RMQ_RESULT_INVALID_PARAMETERS);
    CHECK_RC(rmq_rebalancer_new("{\"group\": \"g\", \"client_id\": \"c1\", \"orderly\": true, \"consume_type\": \"pull\"}", avg, &r),
             RMQ_RESULT_INVALID_PARAMETERS);
    CHECK_RC(rmq_rebalancer_new("{\"group\": \"g\", \"client_id\": \"c1\"}", NULL, &r), RMQ_RESULT_NULL_PARAMETER);
    CHECK_OK(rmq_rebalancer_new("{\"group\": \"g\", \"client_id\": \"c1\", \"orderly\": true}", avg, &r));
    rmq_strategy_free(avg); /* the rebalancer shares it */
    CHECK_OK(rmq_rebalancer_subscribe(r, "T"));

    fake_client c;
    memset(&c, 0, sizeof c);
    c.persist_fail_queue = -1;
    c.self = r;
    for (int i = 0; i < 16; i++) c.committed[i] = -1;
    c.committed[0] = 5;
    rmq_host host = host_for(&c);
    rmq_queue_list *queues = queues_of("T", "b", 4);
    rmq_round_report *report = NULL;

    rmq_host broken = host;
    broken.lock = NULL;
    const char *two[] = {"c2", "c1"};
    CHECK_RC(rmq_rebalancer_rebalance_topic(r, "T", queues, two, 2, 0, &broken, &report), RMQ_RESULT_NULL_PARAMETER);

    /* Round 1, ids {c1, c2}: AVG gives c1 queues 0 and 1; both locked; queue 0 resumes at its
     * committed offset 5, queue 1 (none committed, CONSUME_FROM_LAST_OFFSET) at max = 1001. */
    CHECK_OK(rmq_rebalancer_rebalance_topic(r, "T", queues, two, 2, 1000, &host, &report));
    rmq_round_summary s = summary_of(report);
    CHECK(s.changed && s.balanced && !s.skipped_round && s.allocation == 2 && s.acquired == 2 && s.released == 0);
    CHECK(c.locked[0] && c.locked[1] && !c.locked[2]);
    CHECK(c.dispatched[0] == 1 && c.dispatch_offset[0] == 5 && c.dispatched[1] == 1 && c.dispatch_offset[1] == 1001);
    CHECK(c.changes == 1 && c.reentry == RMQ_RESULT_REENTRANT);
    rmq_queue_list *alloc = NULL;
    CHECK_OK(rmq_round_report_allocation(report, &alloc));
    CHECK(rmq_queue_list_len(alloc) == 2 && queue_id_at(alloc, 1) == 1);
    rmq_queue_list_free(alloc);
    rmq_round_report_free(report);

    uint64_t generation = 0;
    bool yes = false;
    CHECK_OK(rmq_rebalancer_generation(r, "T", "b", 0, &generation));
    CHECK(generation > 0);
    CHECK_OK(rmq_rebalancer_is_consumable(r, "T", "b", 0, generation, 2000, &yes));
    CHECK(yes);
    CHECK_OK(rmq_rebalancer_is_consumable(r, "T", "b", 0, generation + 99, 2000, &yes));
    CHECK(!yes);
    CHECK_OK(rmq_rebalancer_record_pull(r, "T", "b", 0, generation, 2000, &yes));
    CHECK(yes);

    /* Round 2, c1 alone: queues 2 and 3 are new, but the lock call fails: they are skipped, the
     * failure is in the report, and nothing is held that is not locked. */
    const char *one[] = {"c1"};
    c.lock_fail = 7;
    CHECK_OK(rmq_rebalancer_rebalance_topic(r, "T", queues, one, 1, 3000, &host, &report));
    s = summary_of(report);
    CHECK(s.allocation == 4 && s.acquired == 0 && s.skipped == 2 && !s.balanced);
    char *json = json_of(report);
    CHECK(strstr(json, "lock callback returned 7") != NULL);
    free(json);
    rmq_round_report_free(report);
    CHECK(!c.locked[2] && c.dispatched[2] == 0);

    /* Round 3: the broker is back; the next round repairs it. */
    c.lock_fail = 0;
    CHECK_OK(rmq_rebalancer_rebalance_topic(r, "T", queues, one, 1, 4000, &host, &report));
    s = summary_of(report);
    CHECK(s.acquired == 2 && s.balanced && c.locked[2] && c.locked[3] && c.dispatched[2] == 1);
    rmq_round_report_free(report);

    /* Round 4, ids {c1, c2, c3}: c1 keeps 0 and 1 and releases 2 and 3. Committing queue 2 fails:
     * safe mode keeps its lock and retries next round (no other client may start from an older
     * offset); queue 3 is committed and unlocked. */
    const char *three[] = {"c1", "c2", "c3"};
    c.persist_fail_queue = 2;
    CHECK_OK(rmq_rebalancer_rebalance_topic(r, "T", queues, three, 3, 5000, &host, &report));
    s = summary_of(report);
    CHECK(s.released == 1 && s.deferred == 1 && c.locked[2] && !c.locked[3]);
    json = json_of(report);
    CHECK(strstr(json, "persist_failed") != NULL);
    free(json);
    rmq_round_report_free(report);

    c.persist_fail_queue = -1;
    CHECK_OK(rmq_rebalancer_rebalance_topic(r, "T", queues, three, 3, 6000, &host, &report));
    s = summary_of(report);
    CHECK(s.released == 1 && s.deferred == 0 && s.balanced && !c.locked[2]);
    rmq_round_report_free(report);

    /* Unknown route: nothing changes. */
    CHECK_OK(rmq_rebalancer_rebalance_topic(r, "T", NULL, three, 3, 7000, &host, &report));
    s = summary_of(report);
    CHECK(s.skipped_round && !s.changed);
    rmq_round_report_free(report);

    rmq_lock_summary locks;
    CHECK_OK(rmq_rebalancer_lock_all(r, 8000, &host, &locks));
    CHECK(locks.renewed == 2 && locks.lost == 0 && locks.failed_calls == 0);

    /* All topics at once, then unsubscribe: the clean-up releases the topic's queues. */
    rmq_topic_view view = {"T", queues, three, 3};
    rmq_round_report_list *reports = NULL;
    CHECK_OK(rmq_rebalancer_rebalance_all(r, &view, 1, 9000, &host, &reports));
    CHECK(rmq_round_report_list_len(reports) == 1);
    rmq_round_report_list_free(reports);
    CHECK_OK(rmq_rebalancer_unsubscribe(r, "T"));
    CHECK_OK(rmq_rebalancer_rebalance_all(r, NULL, 0, 10000, &host, &reports));
    const rmq_round_report *cleanup = NULL;
    CHECK(rmq_round_report_list_len(reports) == 1);
    CHECK_OK(rmq_round_report_list_get(reports, 0, &cleanup));
    s = summary_of((rmq_round_report *)cleanup);
    CHECK(s.released == 2 && !c.locked[0] && !c.locked[1]);
    CHECK_RC(rmq_round_report_list_get(reports, 1, &cleanup), RMQ_RESULT_OUT_OF_RANGE);
    rmq_round_report_list_free(reports);

    rmq_queue_list *held = NULL;
    CHECK_OK(rmq_rebalancer_held(r, &held));
    CHECK(rmq_queue_list_len(held) == 0);
    rmq_queue_list_free(held);

    /* Take two again, then shut down: commits and unlocks both. */
    CHECK_OK(rmq_rebalancer_subscribe(r, "T"));
    CHECK_OK(rmq_rebalancer_rebalance_topic(r, "T", queues, two, 2, 11000, &host, &report));
    rmq_round_report_free(report);
    int persists = c.persists;
    CHECK_OK(rmq_rebalancer_shutdown(r, &host, &report));
    s = summary_of(report);
    CHECK(s.released == 2 && c.persists == persists + 2 && !c.locked[0] && !c.locked[1]);
    rmq_round_report_free(report);
    rmq_queue_list_free(queues);
    rmq_rebalancer_free(r);
}

int main(void) {
    test_engine();
    return check_report("test_engine");
}
