package rmqrebalance

// The C library, linked statically from the workspace's release build: scripts/build-go.sh runs
// `cargo build --release -p rocketmq-rebalance-c` first. The libraries after the archive are
// what the Rust runtime needs on Linux.

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: ${SRCDIR}/../../target/release/librocketmq_rebalance.a -lgcc_s -lutil -lrt -lpthread -lm -ldl
#include "rmq_go.h"

rmq_result go_rmq_detail(rmq_result rc, go_rmq_error *e) {
	if (rc == RMQ_RESULT_OK || e == NULL) return rc;
	size_t n = 0;
	rmq_last_error_message(NULL, 0, &n);
	e->message = malloc(n > 0 ? n : 1);
	if (e->message == NULL || rmq_last_error_message(e->message, n, &n) != RMQ_RESULT_OK) {
		free(e->message);
		e->message = NULL;
	}
	e->java = rmq_last_error_java_exception();
	return rc;
}

rmq_result go_rmq_from_config(const char *name, const char *params, rmq_strategy **out, go_rmq_error *e) {
	return go_rmq_detail(rmq_strategy_from_config(name, params, out), e);
}

rmq_result go_rmq_consistent_hash(int64_t nodes, rmq_strategy **out, go_rmq_error *e) {
	return go_rmq_detail(rmq_strategy_consistent_hash_new(nodes, out), e);
}

rmq_result go_rmq_balanced_sticky(uint32_t key, const char *sep, const char *const *keys, const uint32_t *weights,
                                         size_t n, rmq_strategy **out, go_rmq_error *e) {
	return go_rmq_detail(rmq_strategy_balanced_sticky_new(key, sep, keys, weights, n, out), e);
}

rmq_result go_rmq_balanced_sticky_v2(uint32_t key, const char *sep, int64_t overload, int64_t underload, rmq_strategy **out,
                                     go_rmq_error *e) {
	return go_rmq_detail(rmq_strategy_balanced_sticky_v2_new(key, sep, overload, underload, out), e);
}

rmq_result go_rmq_by_machine_room(const char *const *idcs, size_t n, rmq_strategy **out, go_rmq_error *e) {
	return go_rmq_detail(rmq_strategy_by_machine_room_new(idcs, n, out), e);
}

rmq_result go_rmq_allocate_packed(const rmq_strategy *s, const char *strings, size_t strings_len, uint32_t group,
                                         uint32_t current, const uint32_t *topics, const uint32_t *brokers,
                                         const int32_t *ids, size_t queues, const uint32_t *clients, size_t clients_len,
                                         const uint32_t *queue_rooms, const uint32_t *client_rooms, uint32_t flags,
                                         size_t *positions, size_t cap, size_t *out_len, go_rmq_error *e) {
	rmq_result rc = rmq_strategy_allocate_packed(s, strings, strings_len, group, current, topics, brokers, ids, queues,
	                                             clients, clients_len, queue_rooms, client_rooms, flags, positions, cap, out_len);
	return rc == RMQ_RESULT_NOT_POSITIONAL || rc == RMQ_RESULT_NO_CONFIGURED_QUEUES ? rc : go_rmq_detail(rc, e);
}

go_rmq_stride go_rmq_stride_of(const rmq_strategy *s, bool current_empty, size_t queues, size_t ids, size_t index) {
	go_rmq_stride out = {0, 0, 0, 1};
	out.rc = rmq_strategy_allocate_by_counts(s, current_empty, queues, ids, index, &out.start, &out.end, &out.step);
	return out;
}

rmq_result go_rmq_allocate_by_counts(const rmq_strategy *s, bool current_empty, size_t queues, size_t ids, size_t index,
                                     size_t *start, size_t *end, size_t *step, go_rmq_error *e) {
	rmq_result rc = rmq_strategy_allocate_by_counts(s, current_empty, queues, ids, index, start, end, step);
	return rc == RMQ_RESULT_NOT_POSITIONAL ? rc : go_rmq_detail(rc, e);
}
*/
import "C"
