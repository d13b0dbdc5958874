/*
 * The engine's safe-mode promises through the C ABI: the optional callbacks of rmq_host_ext
 * (stop_pull, commit_offset), shutdown while a listener call runs, a shut-down rebalancer
 * refusing calls, lost locks and the broker-restart signal, and an rmq_host_ext written by a
 * caller compiled against a smaller struct.
 */
#include "check.h"

typedef struct {
    int locked[8];      /* broker lock table: 1 when this client holds queue i */
    int refuse[8];      /* the broker refuses these */
    int consuming[8];   /* a listener call runs: the consume lock is busy */
    int64_t committed[8];
    int commits[8];     /* commit_offset calls */
    int stops[8];       /* stop_pull calls */
    int persists, unlocks, schedules;
} client;

static int32_t c_lock(void *ud, const char *broker, const rmq_queue *qs, size_t len, bool *locked) {
    client *c = ud;
    (void)broker;
    for (size_t i = 0; i < len; i++) {
        if (c->refuse[qs[i].queue_id]) continue;
        c->locked[qs[i].queue_id] = 1;
        locked[i] = true;
    }
    return 0;
}

static int32_t c_unlock(void *ud, const char *broker, const rmq_queue *qs, size_t len) {
    client *c = ud;
    (void)broker;
    for (size_t i = 0; i < len; i++) c->locked[qs[i].queue_id] = 0;
    c->unlocks += (int)len;
    return 0;
}

static int32_t c_read(void *ud, const rmq_queue *q, uint32_t from, bool *found, int64_t *offset) {
    client *c = ud;
    (void)from;
    *found = c->committed[q->queue_id] >= 0;
    if (*found) *offset = c->committed[q->queue_id];
    return 0;
}

static int32_t c_persist(void *ud, const rmq_queue *q) {
    client *c = ud;
    (void)q;
    c->persists++;
    return 0;
}

static int32_t c_max(void *ud, const rmq_queue *q, int64_t *offset) {
    (void)ud;
    *offset = 100 + q->queue_id;
    return 0;
}

static int32_t c_search(void *ud, const rmq_queue *q, int64_t ts, int64_t *offset) {
    (void)ud;
    (void)q;
    *offset = ts;
    return 0;
}

static bool c_try_consume(void *ud, const rmq_queue *q, uint64_t generation, uint64_t wait_ms) {
    client *c = ud;
    (void)generation;
    (void)wait_ms;
    return !c->consuming[q->queue_id];
}

static void c_schedule(void *ud, uint64_t delay_ms) {
    client *c = ud;
    CHECK(delay_ms == 1000);
    c->schedules++;
}

static void c_stop(void *ud, const rmq_queue *q, uint64_t generation) {
    client *c = ud;
    CHECK(generation > 0);
    c->stops[q->queue_id]++;
}

static int32_t c_commit(void *ud, const rmq_queue *q, int64_t offset) {
    client *c = ud;
    c->commits[q->queue_id]++;
    c->committed[q->queue_id] = offset;
    return 0;
}

static rmq_host host_of(client *c) {
    rmq_host h = {0};
    h.user_data = c;
    h.lock = c_lock;
    h.unlock = c_unlock;
    h.read_offset = c_read;
    h.persist_offset = c_persist;
    h.max_offset = c_max;
    h.search_offset = c_search;
    h.try_consume_lock = c_try_consume;
    h.schedule_rebalance = c_schedule;
    return h;
}

static rmq_rebalancer *orderly_rebalancer(const char *semantics) {
    char config[160];
    snprintf(config, sizeof config, "{\"group\": \"g\", \"client_id\": \"c1\", \"orderly\": true, \"semantics\": \"%s\"}", semantics);
    rmq_strategy *avg = NULL;
    CHECK_OK(rmq_strategy_averagely_new(&avg));
    rmq_rebalancer *r = NULL;
    CHECK_OK(rmq_rebalancer_new(config, avg, &r));
    rmq_strategy_free(avg);
    return r;
}

static rmq_round_summary round_of(rmq_rebalancer *r, rmq_queue_list *qs, const char *const *ids, size_t n, uint64_t now, rmq_host *h) {
    rmq_round_report *report = NULL;
    rmq_round_summary s;
    memset(&s, 0, sizeof s);
    CHECK_OK(rmq_rebalancer_rebalance_topic(r, "T", qs, ids, n, now, h, &report));
    if (report) CHECK_OK(rmq_round_report_summary(report, &s));
    rmq_round_report_free(report);
    return s;
}

static const char *const ME[] = {"c1"};
static const char *const TWO[] = {"c0", "c1"};

static void test_start_offset_commit_and_stop_pull(void) {
    client c = {0};
    for (int i = 0; i < 8; i++) c.committed[i] = -1;
    rmq_host h = host_of(&c);
    rmq_rebalancer *r = orderly_rebalancer("safe");
    rmq_host_ext ext = {sizeof ext, &c, c_stop, c_commit};
    CHECK_OK(rmq_rebalancer_set_host_ext(r, &ext));
    rmq_queue_list *qs = queues_of("T", "b", 2);
    rmq_round_summary s = round_of(r, qs, ME, 1, 0, &h);
    CHECK(s.acquired == 2 && s.warnings == 0);
    /* No committed offset: consume_from chose the max offset, committed once per queue. */
    CHECK(c.commits[0] == 1 && c.committed[0] == 100 && c.commits[1] == 1 && c.committed[1] == 101);
    /* Queue 0 moves to c0: its state is dropped, the host is told to stop pulling it. */
    s = round_of(r, qs, TWO, 2, 1000, &h);
    CHECK(s.released == 1 && c.stops[0] == 1 && c.stops[1] == 0);
    /* Without the extension a queue with no committed offset (2) starts uncommitted, with a
     * warning; queue 0 comes back at its committed 100, queue 1 is still held. */
    CHECK_OK(rmq_rebalancer_set_host_ext(r, NULL));
    rmq_queue_list *q3 = queues_of("T", "b", 3);
    s = round_of(r, q3, ME, 1, 2000, &h);
    CHECK(s.acquired == 2 && s.warnings == 1 && c.commits[2] == 0);
    rmq_queue_list_free(q3);
    rmq_queue_list_free(qs);
    rmq_rebalancer_free(r);
}

/* A caller compiled against a header whose rmq_host_ext ended after stop_pull. */
typedef struct {
    size_t struct_size;
    void *user_data;
    void (*stop_pull)(void *, const rmq_queue *, uint64_t);
} ext_v0;

static void test_a_smaller_extension_struct_is_read_up_to_its_size(void) {
    client c = {0};
    for (int i = 0; i < 8; i++) c.committed[i] = -1;
    rmq_host h = host_of(&c);
    rmq_rebalancer *r = orderly_rebalancer("safe");
    ext_v0 old = {sizeof old, &c, c_stop};
    CHECK_OK(rmq_rebalancer_set_host_ext(r, (const rmq_host_ext *)(const void *)&old));
    rmq_queue_list *qs = queues_of("T", "b", 1);
    rmq_round_summary s = round_of(r, qs, ME, 1, 0, &h);
    CHECK(s.acquired == 1 && s.warnings == 1 && c.commits[0] == 0); /* commit_offset read as NULL */
    ext_v0 broken = {1, &c, c_stop};
    CHECK_RC(rmq_rebalancer_set_host_ext(r, (const rmq_host_ext *)(const void *)&broken), RMQ_RESULT_OUT_OF_RANGE);
    CHECK_RC(rmq_rebalancer_set_host_ext(NULL, NULL), RMQ_RESULT_NULL_PARAMETER);
    rmq_queue_list_free(qs);
    rmq_rebalancer_free(r);
}

static void test_shutdown_while_a_listener_runs(void) {
    client c = {0};
    rmq_host h = host_of(&c);
    rmq_rebalancer *r = orderly_rebalancer("safe");
    rmq_queue_list *qs = queues_of("T", "b", 2);
    round_of(r, qs, ME, 1, 0, &h);
    c.consuming[0] = 1;
    rmq_round_report *report = NULL;
    CHECK_OK(rmq_rebalancer_shutdown(r, &h, &report));
    rmq_round_summary s;
    CHECK_OK(rmq_round_report_summary(report, &s));
    CHECK(s.deferred == 1 && s.released == 1 && !s.balanced);
    CHECK(c.locked[0] == 1 && c.locked[1] == 0 && c.unlocks == 1);
    rmq_round_report_free(report);
    bool down = false;
    CHECK_OK(rmq_rebalancer_is_shut_down(r, &down));
    CHECK(down);
    /* Refused from now on; lock_all still renews what shutdown left. */
    CHECK_RC(rmq_rebalancer_rebalance_topic(r, "T", qs, ME, 1, 1000, &h, &report), RMQ_RESULT_SHUT_DOWN);
    CHECK_RC(rmq_rebalancer_subscribe(r, "U"), RMQ_RESULT_SHUT_DOWN);
    rmq_lock_summary locks = {0};
    CHECK_OK(rmq_rebalancer_lock_all(r, 20000, &h, &locks));
    CHECK(locks.renewed == 1);
    char name[64];
    size_t n = 0;
    CHECK_OK(rmq_result_message(RMQ_RESULT_SHUT_DOWN, name, sizeof name, &n));
    CHECK(strcmp(name, "the rebalancer was shut down") == 0);
    CHECK(strcmp(rmq_result_java_exception(RMQ_RESULT_SHUT_DOWN), "IllegalStateException") == 0);
    /* The call ends: shutting down again finishes. */
    c.consuming[0] = 0;
    CHECK_OK(rmq_rebalancer_shutdown_at(r, 21000, &h, &report));
    CHECK_OK(rmq_round_report_summary(report, &s));
    CHECK(s.released == 1 && s.deferred == 0 && s.balanced && c.locked[0] == 0);
    rmq_round_report_free(report);
    rmq_queue_list_free(qs);
    rmq_rebalancer_free(r);
}

static void test_lost_locks(void) {
    client c = {0};
    rmq_host h = host_of(&c);
    rmq_rebalancer *r = orderly_rebalancer("safe");
    rmq_queue_list *qs = queues_of("T", "b", 2);
    round_of(r, qs, ME, 1, 0, &h);
    uint64_t generation = 0;
    bool yes = true;
    CHECK_OK(rmq_rebalancer_generation(r, "T", "b", 0, &generation));
    /* A broker restart, signalled: not consumable, an early round asked for, restarted fresh. */
    rmq_lock_summary locks = {0};
    CHECK_OK(rmq_rebalancer_locks_lost(r, "b", 1000, &h, &locks));
    CHECK(locks.lost == 2 && c.schedules == 1);
    CHECK_OK(rmq_rebalancer_is_consumable(r, "T", "b", 0, generation, 1000, &yes));
    CHECK(!yes);
    int persists = c.persists;
    rmq_round_summary s = round_of(r, qs, ME, 1, 2000, &h);
    CHECK(s.released == 2 && s.acquired == 2 && c.persists == persists);
    uint64_t fresh = 0;
    CHECK_OK(rmq_rebalancer_generation(r, "T", "b", 0, &fresh));
    CHECK(fresh > generation);
    /* A renewal the broker refuses: lost; lock_queue does not resume it in safe mode. */
    c.refuse[1] = 1;
    CHECK_OK(rmq_rebalancer_lock_all(r, 20000, &h, &locks));
    CHECK(locks.renewed == 1 && locks.lost == 1);
    c.refuse[1] = 0;
    CHECK_OK(rmq_rebalancer_lock_queue(r, "T", "b", 1, 21000, &h, &locks));
    CHECK(locks.renewed == 0);
    CHECK_RC(rmq_rebalancer_lock_queue(r, "T", NULL, 1, 21000, &h, &locks), RMQ_RESULT_NULL_PARAMETER);
    CHECK_RC(rmq_rebalancer_locks_lost(r, NULL, 1000, &h, &locks), RMQ_RESULT_NULL_PARAMETER);
    rmq_queue_list_free(qs);
    rmq_rebalancer_free(r);

    /* Java mode: no such signal, and lock_queue resumes the old state. */
    client j = {0};
    rmq_host jh = host_of(&j);
    rmq_rebalancer *java = orderly_rebalancer("java");
    rmq_queue_list *one = queues_of("T", "b", 1);
    round_of(java, one, ME, 1, 0, &jh);
    CHECK_OK(rmq_rebalancer_locks_lost(java, "b", 1000, &jh, &locks));
    CHECK(locks.lost == 0);
    j.refuse[0] = 1;
    CHECK_OK(rmq_rebalancer_lock_all(java, 20000, &jh, &locks));
    j.refuse[0] = 0;
    CHECK_OK(rmq_rebalancer_lock_queue(java, "T", "b", 0, 21000, &jh, &locks));
    CHECK(locks.renewed == 1);
    rmq_queue_list_free(one);
    rmq_rebalancer_free(java);
}

static void test_unknown_configuration_keys_are_refused(void) {
    rmq_strategy *avg = NULL;
    CHECK_OK(rmq_strategy_averagely_new(&avg));
    rmq_rebalancer *r = NULL;
    CHECK_RC(rmq_rebalancer_new("{\"group\": \"g\", \"client_id\": \"c1\", \"timing\": {\"lock_valid_msec\": 1}}", avg, &r),
             RMQ_RESULT_INVALID_PARAMETERS);
    CHECK(r == NULL);
    rmq_strategy_free(avg);
}

int main(void) {
    test_start_offset_commit_and_stop_pull();
    test_a_smaller_extension_struct_is_read_up_to_its_size();
    test_shutdown_while_a_listener_runs();
    test_lost_locks();
    test_unknown_configuration_keys_are_refused();
    return check_report("test_engine_safety");
}
