/* Minimal test helpers shared by the C tests: counted checks that report file and line. */
#ifndef RMQ_TEST_CHECK_H
#define RMQ_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocketmq_rebalance.h"

static int check_failures = 0;
static int check_count = 0;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        check_count++;                                                                \
        if (!(cond)) {                                                                \
            check_failures++;                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                             \
    } while (0)

/* Checks that a call returned `expected`, printing the library's message otherwise (the call's
 * full message when it failed, the code's text when it succeeded unexpectedly). */
#define CHECK_RC(call, expected)                                                                   \
    do {                                                                                           \
        rmq_result rc_ = (call);                                                                   \
        check_count++;                                                                             \
        if (rc_ != (expected)) {                                                                   \
            char msg_[256];                                                                        \
            size_t n_;                                                                             \
            if ((rc_ == RMQ_RESULT_OK ? rmq_result_message(rc_, msg_, sizeof msg_, &n_)             \
                                      : rmq_last_error_message(msg_, sizeof msg_, &n_)) != RMQ_RESULT_OK) \
                strcpy(msg_, "?");                                                                 \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: %s returned %u (%s), expected %u\n", __FILE__, __LINE__, #call, \
                    (unsigned)rc_, msg_, (unsigned)(expected));                                    \
        }                                                                                          \
    } while (0)

#define CHECK_OK(call) CHECK_RC(call, RMQ_RESULT_OK)

/* A list of queues 0..n-1 of one topic on one broker. */
static inline rmq_queue_list *queues_of(const char *topic, const char *broker, int n) {
    rmq_queue_list *list = NULL;
    CHECK_OK(rmq_queue_list_new(&list));
    for (int i = 0; i < n; i++) CHECK_OK(rmq_queue_list_push(list, topic, broker, i));
    return list;
}

static inline int32_t queue_id_at(const rmq_queue_list *list, size_t i) {
    int32_t id = -1;
    CHECK_OK(rmq_queue_list_get(list, i, NULL, NULL, &id));
    return id;
}

/* Prints the totals and gives the process exit code. */
static int check_report(const char *suite) {
    printf("%s: %d checks, %d failed\n", suite, check_count, check_failures);
    return check_failures == 0 ? 0 : 1;
}

#endif
