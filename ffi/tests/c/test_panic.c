/*
 * A panic crossing into C: linked against the test-only build with the panic-probe feature
 * (scripts/test-c.sh), whose rmq_test_panic panics inside the boundary. The call must return
 * RMQ_RESULT_PANIC with the panic's message, never unwind or abort, and the library must go on
 * working on this thread and others.
 */
#include <pthread.h>

#include "check.h"

/* Not in the header: only the probe build exports it. */
rmq_result rmq_test_panic(const char *message);

/* 1 when a strategy still answers (4 queues, one member: all 4). No CHECK here: threads call it. */
static int allocate_still_works(void) {
    rmq_strategy *s = NULL;
    rmq_queue_list *queues = NULL, *mine = NULL;
    const char *ids[] = {"c1"};
    int ok = rmq_strategy_from_config("consistent_hash", NULL, &s) == RMQ_RESULT_OK && rmq_queue_list_new(&queues) == RMQ_RESULT_OK;
    for (int i = 0; ok && i < 4; i++) ok = rmq_queue_list_push(queues, "T", "b", i) == RMQ_RESULT_OK;
    ok = ok && rmq_strategy_allocate(s, "g", "c1", queues, ids, 1, &mine) == RMQ_RESULT_OK && rmq_queue_list_len(mine) == 4;
    rmq_queue_list_free(mine);
    rmq_queue_list_free(queues);
    rmq_strategy_free(s);
    return ok;
}

/* Panics on its own thread; returns non-NULL when everything behaved. */
static void *panic_on_thread(void *arg) {
    int ok = rmq_test_panic((const char *)arg) == RMQ_RESULT_PANIC && rmq_last_error_code() == RMQ_RESULT_PANIC;
    return ok && allocate_still_works() ? arg : NULL;
}

int main(void) {
    CHECK_RC(rmq_test_panic("probe: panic number one"), RMQ_RESULT_PANIC);
    char buf[256];
    size_t n = 0;
    CHECK_OK(rmq_last_error_message(buf, sizeof buf, &n));
    CHECK(strstr(buf, "probe: panic number one") != NULL);
    CHECK(rmq_last_error_code() == RMQ_RESULT_PANIC);
    CHECK(strcmp(rmq_last_error_java_exception(), "RuntimeException") == 0);
    CHECK(allocate_still_works());

    /* Arguments are still checked before the body runs. */
    CHECK_RC(rmq_test_panic(NULL), RMQ_RESULT_NULL_PARAMETER);

    pthread_t threads[4];
    for (int t = 0; t < 4; t++) CHECK(pthread_create(&threads[t], NULL, panic_on_thread, "probe: on a thread") == 0);
    for (int t = 0; t < 4; t++) {
        void *behaved = NULL;
        pthread_join(threads[t], &behaved);
        CHECK(behaved != NULL);
    }
    return check_report("test_panic");
}
