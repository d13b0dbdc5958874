/* The C helpers of the Go package (defined in cgo.go): each makes one library call and, when it
 * fails, reads the call's detail on the same thread (the library keeps it per thread, and a
 * goroutine may move to another thread between two cgo calls). */
#ifndef RMQ_GO_H
#define RMQ_GO_H
#include <stdlib.h>
#include <rocketmq_rebalance.h>

/* A failed call's detail; message is malloc'ed (freed by the Go side). */
typedef struct { char *message; const char *java; } go_rmq_error;

rmq_result go_rmq_detail(rmq_result rc, go_rmq_error *e);
rmq_result go_rmq_from_config(const char *name, const char *params, rmq_strategy **out, go_rmq_error *e);
rmq_result go_rmq_consistent_hash(int64_t nodes, rmq_strategy **out, go_rmq_error *e);
rmq_result go_rmq_balanced_sticky(uint32_t key, const char *sep, const char *const *keys, const uint32_t *weights,
                                  size_t n, rmq_strategy **out, go_rmq_error *e);
rmq_result go_rmq_balanced_sticky_v2(uint32_t key, const char *sep, int64_t overload, int64_t underload, rmq_strategy **out,
                                     go_rmq_error *e);
rmq_result go_rmq_by_machine_room(const char *const *idcs, size_t n, rmq_strategy **out, go_rmq_error *e);
rmq_result go_rmq_allocate_packed(const rmq_strategy *s, const char *strings, size_t strings_len, uint32_t group,
                                  uint32_t current, const uint32_t *topics, const uint32_t *brokers, const int32_t *ids,
                                  size_t queues, const uint32_t *clients, size_t clients_len, const uint32_t *queue_rooms,
                                  const uint32_t *client_rooms, uint32_t flags, size_t *positions, size_t cap, size_t *out_len,
                                  go_rmq_error *e);
/* The count path's answer by value: no pointer crosses, so nothing escapes to Go's heap. */
typedef struct { rmq_result rc; size_t start, end, step; } go_rmq_stride;
go_rmq_stride go_rmq_stride_of(const rmq_strategy *s, bool current_empty, size_t queues, size_t ids, size_t index);
rmq_result go_rmq_allocate_by_counts(const rmq_strategy *s, bool current_empty, size_t queues, size_t ids, size_t index,
                                     size_t *start, size_t *end, size_t *step, go_rmq_error *e);
#endif
