/*
 * One-member allocation through the C API, timed: the C half of scripts/bench-ffi.sh, whose Rust
 * half (core/examples/bench_allocate.rs) times the same calls on the Rust API with the same loop.
 * Prints one line per (strategy, call): "c <strategy> <call> <queues> <ids> <ns per call>".
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rocketmq_rebalance.h"

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void bench(const char *name, int queues_n, int ids_n, long iterations) {
    /* Consistent hash costs ~100x AVG per call: fewer iterations keep the run short. */
    if (strcmp(name, "consistent_hash") == 0) iterations /= 20;
    rmq_strategy *s = NULL;
    if (rmq_strategy_from_config(name, NULL, &s) != RMQ_RESULT_OK) abort();
    rmq_queue_list *queues = NULL;
    rmq_queue_list_new(&queues);
    for (int i = 0; i < queues_n; i++) rmq_queue_list_push(queues, "TopicA", "broker-a", i);
    char **ids = malloc(sizeof(char *) * (size_t)ids_n);
    for (int i = 0; i < ids_n; i++) {
        ids[i] = malloc(32);
        snprintf(ids[i], 32, "10.0.0.%d@%d", i, 1000 + i);
    }
    rmq_sort_client_ids((const char **)ids, (size_t)ids_n);
    const char *const *cids = (const char *const *)ids;
    size_t *positions = malloc(sizeof(size_t) * (size_t)queues_n);
    size_t n = 0, sink = 0;

    /* Warm up (the consistent-hash ring cache, the id scratch), then time. */
    for (long it = 0; it < iterations / 10; it++)
        rmq_strategy_allocate_positions(s, "GID", ids[it % ids_n], queues, cids, (size_t)ids_n, positions, (size_t)queues_n, &n);
    double t0 = now_ns();
    for (long it = 0; it < iterations; it++) {
        if (rmq_strategy_allocate_positions(s, "GID", ids[it % ids_n], queues, cids, (size_t)ids_n, positions, (size_t)queues_n, &n)) abort();
        sink += n;
    }
    double t1 = now_ns();
    printf("c %s positions %d %d %.1f\n", name, queues_n, ids_n, (t1 - t0) / (double)iterations);

    /* The same with the ids checked once into an rmq_id_list, as a client does per round. */
    rmq_id_list *id_list = NULL;
    if (rmq_id_list_new(cids, (size_t)ids_n, &id_list) != RMQ_RESULT_OK) abort();
    t0 = now_ns();
    for (long it = 0; it < iterations; it++) {
        if (rmq_strategy_allocate_positions_ids(s, "GID", ids[it % ids_n], queues, id_list, positions, (size_t)queues_n, &n)) abort();
        sink += n;
    }
    t1 = now_ns();
    printf("c %s positions_ids %d %d %.1f\n", name, queues_n, ids_n, (t1 - t0) / (double)iterations);
    rmq_id_list_free(id_list);

    t0 = now_ns();
    for (long it = 0; it < iterations; it++) {
        rmq_queue_list *mine = NULL;
        if (rmq_strategy_allocate(s, "GID", ids[it % ids_n], queues, cids, (size_t)ids_n, &mine)) abort();
        sink += rmq_queue_list_len(mine);
        rmq_queue_list_free(mine);
    }
    t1 = now_ns();
    printf("c %s list %d %d %.1f\n", name, queues_n, ids_n, (t1 - t0) / (double)iterations);
    if (sink == 42) puts("");

    free(positions);
    for (int i = 0; i < ids_n; i++) free(ids[i]);
    free(ids);
    rmq_queue_list_free(queues);
    rmq_strategy_free(s);
}

int main(int argc, char **argv) {
    long iterations = argc > 1 ? atol(argv[1]) : 2000000;
    const char *names[] = {"averagely", "circle", "consistent_hash"};
    for (int i = 0; i < 3; i++) bench(names[i], 16, 4, iterations);
    for (int i = 0; i < 3; i++) bench(names[i], 1000, 100, iterations / 100);
    return 0;
}
