// rocketmq-rebalance for C++17, part 2 of 2: the rebalance engine (Host, Rebalancer) over the C
// API in rocketmq_rebalance.h. Include <rocketmq_rebalance.hpp> for both parts.
#ifndef ROCKETMQ_REBALANCE_ENGINE_HPP
#define ROCKETMQ_REBALANCE_ENGINE_HPP

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "strategy.hpp"

namespace rocketmq_rebalance {

/// The client around a Rebalancer: broker calls, offsets, the consume service. A method that
/// throws is that step's failure (the engine leaves the queue in a defined state and a later round
/// repairs it). Called on the thread running the engine call.
class Host {
public:
    virtual ~Host() = default;
    /// Lock `queues` on `broker`; return those now locked.
    virtual std::vector<Queue> lock(const std::string &broker, const std::vector<Queue> &queues) = 0;
    virtual void unlock(const std::string &broker, const std::vector<Queue> &queues) = 0;
    /// The committed offset, std::nullopt when there is none (throw when the store cannot be read).
    virtual std::optional<int64_t> read_offset(const Queue &queue, uint32_t from) = 0;
    virtual void persist_offset(const Queue &queue) = 0;
    virtual void remove_offset(const Queue &) {}
    virtual int64_t max_offset(const Queue &queue) = 0;
    virtual int64_t search_offset(const Queue &queue, int64_t timestamp_ms) = 0;
    virtual bool try_consume_lock(const Queue &, uint64_t /*generation*/, uint64_t /*wait_ms*/) { return true; }
    virtual void release_consume_lock(const Queue &, uint64_t /*generation*/) {}
    virtual void dispatch_pull(const Queue &queue, int64_t offset, uint64_t delay_ms, uint64_t generation) = 0;
    virtual void queue_set_changed(const std::string &, const QueueList &, const QueueList &) {}
    virtual void schedule_rebalance(uint64_t /*delay_ms*/) {}
    /// A queue state was dropped (released, or its lock lost): stop pulling it. Once per state.
    virtual void stop_pull(const Queue &, uint64_t /*generation*/) {}
    /// Whether this host implements commit_offset (default: no; a queue started from
    /// consume_from then starts uncommitted, as in Java, and the round warns).
    virtual bool commits_offsets() const { return false; }
    /// Set the group's committed offset of `queue` to `offset` on the broker, synchronously;
    /// throw when it fails (the queue is then skipped and retried next round).
    virtual void commit_offset(const Queue &, int64_t /*offset*/) {}
};

/// What one engine call did.
struct RoundReport {
    rmq_round_summary summary{};
    std::vector<Queue> allocation;
    /// Everything, as JSON (released, deferred, acquired, skipped and why, warnings).
    std::string json;
};

/// One consumer's rebalancing state. Thread-safe: calls are serialised (the optional host
/// callbacks are handed to the library right before each call, under this object's mutex);
/// is_consumable, record_pull and generation never wait for a running round. A call from inside
/// one of this rebalancer's own host callbacks throws Error (RMQ_RESULT_REENTRANT), and after
/// shutdown every call but shutdown (and lock_all in safe mode) throws (RMQ_RESULT_SHUT_DOWN).
class Rebalancer {
public:
    /// `config_json`: {"group": ..., "client_id": ..., "orderly": ..., ...} (see the C header).
    Rebalancer(const std::string &config_json, const Strategy &strategy) {
        rmq_rebalancer *raw = nullptr;
        detail::check(rmq_rebalancer_new(config_json.c_str(), strategy.get(), &raw));
        r_.reset(raw);
    }

    void subscribe(const std::string &topic) { detail::check(rmq_rebalancer_subscribe(r_.get(), topic.c_str())); }
    void unsubscribe(const std::string &topic) { detail::check(rmq_rebalancer_unsubscribe(r_.get(), topic.c_str())); }

    /// One round for one topic. `queues` nullptr: route unknown; std::nullopt ids: unavailable.
    RoundReport rebalance_topic(const std::string &topic, const QueueList *queues,
                                const std::optional<std::vector<std::string>> &ids, uint64_t now_ms, Host &host) {
        std::vector<const char *> raw = ids ? detail::c_strings(*ids) : std::vector<const char *>{};
        static const char *const none[1] = {nullptr};
        const char *const *id_ptr = ids ? (raw.empty() ? none : raw.data()) : nullptr;
        return with_host(host, [&](rmq_host *c) {
            rmq_round_report *out = nullptr;
            detail::check(rmq_rebalancer_rebalance_topic(r_.get(), topic.c_str(), queues ? queues->get() : nullptr, id_ptr, raw.size(), now_ms, c, &out));
            return take(out);
        });
    }

    /// Renew every held orderly lock (every 20 s). Accepted after shutdown in safe mode.
    rmq_lock_summary lock_all(uint64_t now_ms, Host &host) {
        return lock_call(host, [&](rmq_host *c, rmq_lock_summary *s) { return rmq_rebalancer_lock_all(r_.get(), now_ms, c, s); });
    }

    /// lockOneMQ for one held queue found unlocked or expired.
    rmq_lock_summary lock_queue(const Queue &q, uint64_t now_ms, Host &host) {
        return lock_call(host, [&](rmq_host *c, rmq_lock_summary *s) {
            return rmq_rebalancer_lock_queue(r_.get(), q.topic.c_str(), q.broker_name.c_str(), q.queue_id, now_ms, c, s);
        });
    }

    /// The host saw `broker` restart: safe mode stops consuming its orderly queues until re-locked.
    rmq_lock_summary locks_lost(const std::string &broker, uint64_t now_ms, Host &host) {
        return lock_call(host, [&](rmq_host *c, rmq_lock_summary *s) { return rmq_rebalancer_locks_lost(r_.get(), broker.c_str(), now_ms, c, s); });
    }

    /// Release everything; safe mode leaves a queue whose listener call runs locked and deferred:
    /// keep calling lock_all while it runs, then shutdown(host, now_ms) again to finish.
    RoundReport shutdown(Host &host, std::optional<uint64_t> now_ms = std::nullopt) {
        return with_host(host, [&](rmq_host *c) {
            rmq_round_report *out = nullptr;
            detail::check(now_ms ? rmq_rebalancer_shutdown_at(r_.get(), *now_ms, c, &out) : rmq_rebalancer_shutdown(r_.get(), c, &out));
            return take(out);
        });
    }

    bool is_shut_down() const {
        bool yes = false;
        detail::check(rmq_rebalancer_is_shut_down(r_.get(), &yes));
        return yes;
    }

    QueueList held() const {
        rmq_queue_list *out = nullptr;
        detail::check(rmq_rebalancer_held(r_.get(), &out));
        return QueueList(out);
    }

    /// Never waits for a running round: ask it from consume threads under the consume lock.
    bool is_consumable(const Queue &q, uint64_t generation, uint64_t now_ms) const {
        bool yes = false;
        detail::check(rmq_rebalancer_is_consumable(r_.get(), q.topic.c_str(), q.broker_name.c_str(), q.queue_id, generation, now_ms, &yes));
        return yes;
    }

    /// Never waits; false for a stale generation.
    bool record_pull(const Queue &q, uint64_t generation, uint64_t now_ms) const {
        bool yes = false;
        detail::check(rmq_rebalancer_record_pull(r_.get(), q.topic.c_str(), q.broker_name.c_str(), q.queue_id, generation, now_ms, &yes));
        return yes;
    }

    /// The generation of the state held for `q`, 0 when none. Never waits.
    uint64_t generation(const Queue &q) const {
        uint64_t g = 0;
        detail::check(rmq_rebalancer_generation(r_.get(), q.topic.c_str(), q.broker_name.c_str(), q.queue_id, &g));
        return g;
    }

private:
    /// Runs one library call with `host`: its optional callbacks are set for this call first.
    template <typename F>
    auto with_host(Host &host, F &&f) -> decltype(f(static_cast<rmq_host *>(nullptr))) {
        std::lock_guard<std::recursive_mutex> serialised(calls_);
        rmq_host_ext ext{};
        ext.struct_size = sizeof ext;
        ext.user_data = &host;
        ext.stop_pull = [](void *ud, const rmq_queue *queue, uint64_t generation) noexcept {
            guard([&] { h(ud).stop_pull(q(queue), generation); });
        };
        if (host.commits_offsets()) {
            ext.commit_offset = [](void *ud, const rmq_queue *queue, int64_t offset) noexcept {
                return guard([&] { h(ud).commit_offset(q(queue), offset); });
            };
        }
        detail::check(rmq_rebalancer_set_host_ext(r_.get(), &ext));
        rmq_host c = bridge(host);
        return f(&c);
    }

    template <typename F>
    rmq_lock_summary lock_call(Host &host, F &&f) {
        return with_host(host, [&](rmq_host *c) {
            rmq_lock_summary s{};
            detail::check(f(c, &s));
            return s;
        });
    }

    static RoundReport take(rmq_round_report *raw) {
        std::unique_ptr<rmq_round_report, detail::Deleter<rmq_round_report, rmq_round_report_free>> report(raw);
        RoundReport out;
        detail::check(rmq_round_report_summary(raw, &out.summary));
        rmq_queue_list *alloc = nullptr;
        detail::check(rmq_round_report_allocation(raw, &alloc));
        out.allocation = QueueList(alloc).to_vector();
        size_t n = 0;
        rmq_round_report_to_json(raw, nullptr, 0, &n);  // BUFFER_TOO_SMALL, with the size needed
        out.json.resize(n);
        detail::check(rmq_round_report_to_json(raw, &out.json[0], n, &n));
        out.json.resize(n);
        return out;
    }

    static Queue q(const rmq_queue *c) { return Queue{c->topic, c->broker_name, c->queue_id}; }
    static std::vector<Queue> qs(const rmq_queue *c, size_t len) {
        std::vector<Queue> out;
        for (size_t i = 0; i < len; i++) out.push_back(q(&c[i]));
        return out;
    }
    static Host &h(void *ud) { return *static_cast<Host *>(ud); }

    /// Runs a host method; an exception is the step's failure (1).
    template <typename F>
    static int32_t guard(F &&f) noexcept {
        try {
            f();
            return 0;
        } catch (...) {
            return 1;
        }
    }

    static rmq_host bridge(Host &host) {
        rmq_host c{};
        c.user_data = &host;
        c.lock = [](void *ud, const char *broker, const rmq_queue *queues, size_t len, bool *locked) noexcept {
            return guard([&] {
                std::vector<Queue> asked = qs(queues, len);
                std::vector<Queue> got = h(ud).lock(broker, asked);
                for (size_t i = 0; i < len; i++)
                    for (const auto &g : got) locked[i] = locked[i] || g == asked[i];
            });
        };
        c.unlock = [](void *ud, const char *broker, const rmq_queue *queues, size_t len) noexcept {
            return guard([&] { h(ud).unlock(broker, qs(queues, len)); });
        };
        c.read_offset = [](void *ud, const rmq_queue *queue, uint32_t from, bool *found, int64_t *offset) noexcept {
            return guard([&] {
                std::optional<int64_t> o = h(ud).read_offset(q(queue), from);
                *found = o.has_value();
                if (o) *offset = *o;
            });
        };
        c.persist_offset = [](void *ud, const rmq_queue *queue) noexcept { return guard([&] { h(ud).persist_offset(q(queue)); }); };
        c.remove_offset = [](void *ud, const rmq_queue *queue) noexcept { guard([&] { h(ud).remove_offset(q(queue)); }); };
        c.max_offset = [](void *ud, const rmq_queue *queue, int64_t *offset) noexcept {
            return guard([&] { *offset = h(ud).max_offset(q(queue)); });
        };
        c.search_offset = [](void *ud, const rmq_queue *queue, int64_t ts, int64_t *offset) noexcept {
            return guard([&] { *offset = h(ud).search_offset(q(queue), ts); });
        };
        c.try_consume_lock = [](void *ud, const rmq_queue *queue, uint64_t generation, uint64_t wait_ms) noexcept {
            bool taken = false;
            // A host that throws here has not taken the lock.
            guard([&] { taken = h(ud).try_consume_lock(q(queue), generation, wait_ms); });
            return taken;
        };
        c.release_consume_lock = [](void *ud, const rmq_queue *queue, uint64_t generation) noexcept {
            guard([&] { h(ud).release_consume_lock(q(queue), generation); });
        };
        c.dispatch_pull = [](void *ud, const rmq_queue *queue, int64_t offset, uint64_t delay_ms, uint64_t generation) noexcept {
            guard([&] { h(ud).dispatch_pull(q(queue), offset, delay_ms, generation); });
        };
        c.queue_set_changed = [](void *ud, const char *topic, const rmq_queue_list *all, const rmq_queue_list *mine) noexcept {
            guard([&] {
                // Borrowed lists: copied into owned ones for the duration of the call.
                QueueList a, m;
                for (size_t i = 0; i < rmq_queue_list_len(all); i++) {
                    const char *t, *b;
                    int32_t id;
                    rmq_queue_list_get(all, i, &t, &b, &id);
                    a.push(t, b, id);
                }
                for (size_t i = 0; i < rmq_queue_list_len(mine); i++) {
                    const char *t, *b;
                    int32_t id;
                    rmq_queue_list_get(mine, i, &t, &b, &id);
                    m.push(t, b, id);
                }
                h(ud).queue_set_changed(topic, a, m);
            });
        };
        c.schedule_rebalance = [](void *ud, uint64_t delay_ms) noexcept { guard([&] { h(ud).schedule_rebalance(delay_ms); }); };
        return c;
    }

    std::unique_ptr<rmq_rebalancer, detail::Deleter<rmq_rebalancer, rmq_rebalancer_free>> r_;
    /// Recursive: a host callback that calls back in reaches the library, which answers
    /// RMQ_RESULT_REENTRANT (an exception) instead of this mutex deadlocking.
    std::recursive_mutex calls_;
};

}  // namespace rocketmq_rebalance

#endif  // ROCKETMQ_REBALANCE_ENGINE_HPP
