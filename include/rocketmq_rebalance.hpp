// rocketmq-rebalance for C++17: RAII handles, exceptions, std::string and std::vector over the
// C API in rocketmq_rebalance.h. Header-only; link librocketmq_rebalance.
//
// Ownership: every wrapper owns its handle and frees it in its destructor. Strategy is a cheap
// shared handle (copies share one immutable strategy, usable from any number of threads).
// QueueList, GroupAllocation and Rebalancer are move-only.
// Errors: a failing call throws rocketmq_rebalance::Error, which carries the rmq_result code and
// the name of the exception the Java client throws for the same input.
// Callbacks: exceptions thrown by a MachineRoomResolver or a Host never cross into the library;
// they become that callback's failure (CALLBACK_FAILED for a resolver, a failed step for a host).
#ifndef ROCKETMQ_REBALANCE_HPP
#define ROCKETMQ_REBALANCE_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rocketmq_rebalance.h"

namespace rocketmq_rebalance {

/// A failed call: the code and its message.
class Error : public std::runtime_error {
public:
    explicit Error(rmq_result code) : std::runtime_error(message_of(code)), code_(code) {}

    rmq_result code() const noexcept { return code_; }

    /// "IllegalArgumentException", "NullPointerException", "RuntimeException".
    std::string java_exception() const {
        const char *name = rmq_result_java_exception(code_);
        return name ? name : "";
    }

private:
    static std::string message_of(rmq_result code) {
        char buf[256];
        size_t n = 0;
        if (rmq_result_message(code, buf, sizeof buf, &n) != RMQ_RESULT_OK) return "rmq_result " + std::to_string(code);
        return std::string(buf, n);
    }

    rmq_result code_;
};

namespace detail {

inline void check(rmq_result rc) {
    if (rc != RMQ_RESULT_OK) throw Error(rc);
}

/// Borrowed C strings for an id list; valid while `ids` lives.
inline std::vector<const char *> c_strings(const std::vector<std::string> &ids) {
    std::vector<const char *> out;
    out.reserve(ids.size());
    for (const auto &id : ids) out.push_back(id.c_str());
    return out;
}

template <typename T, void (*Free)(T *)>
struct Deleter {
    void operator()(T *p) const noexcept { Free(p); }
};

}  // namespace detail

/// One message queue.
struct Queue {
    std::string topic;
    std::string broker_name;
    int32_t queue_id = 0;

    bool operator==(const Queue &o) const { return queue_id == o.queue_id && topic == o.topic && broker_name == o.broker_name; }
    bool operator!=(const Queue &o) const { return !(*this == o); }
};

/// A list of message queues (owns an rmq_queue_list).
class QueueList {
public:
    QueueList() {
        rmq_queue_list *raw = nullptr;
        detail::check(rmq_queue_list_new(&raw));
        list_.reset(raw);
    }

    QueueList(std::initializer_list<Queue> queues) : QueueList() {
        for (const auto &q : queues) push(q);
    }

    /// Takes ownership of a list the library returned.
    explicit QueueList(rmq_queue_list *adopted) : list_(adopted) {}

    /// `count` queues 0..count-1 of one topic on one broker.
    static QueueList range(const std::string &topic, const std::string &broker, int32_t count) {
        QueueList list;
        for (int32_t i = 0; i < count; i++) list.push(topic, broker, i);
        return list;
    }

    void push(const std::string &topic, const std::string &broker, int32_t queue_id) {
        detail::check(rmq_queue_list_push(list_.get(), topic.c_str(), broker.c_str(), queue_id));
    }
    void push(const Queue &q) { push(q.topic, q.broker_name, q.queue_id); }

    size_t size() const noexcept { return rmq_queue_list_len(list_.get()); }
    bool empty() const noexcept { return size() == 0; }

    /// Throws Error(RMQ_RESULT_OUT_OF_RANGE) past the end.
    Queue at(size_t i) const {
        const char *topic = nullptr;
        const char *broker = nullptr;
        int32_t id = 0;
        detail::check(rmq_queue_list_get(list_.get(), i, &topic, &broker, &id));
        return Queue{topic, broker, id};
    }
    Queue operator[](size_t i) const { return at(i); }

    std::vector<Queue> to_vector() const {
        std::vector<Queue> out;
        out.reserve(size());
        for (size_t i = 0; i < size(); i++) out.push_back(at(i));
        return out;
    }

    /// Java's Collections.sort order, as every client sorts before allocating.
    void sort() { detail::check(rmq_queue_list_sort(list_.get())); }

    const rmq_queue_list *get() const noexcept { return list_.get(); }

private:
    std::unique_ptr<rmq_queue_list, detail::Deleter<rmq_queue_list, rmq_queue_list_free>> list_;
};

/// Sorts ids as Java's String.compareTo does (UTF-16 order).
inline void sort_client_ids(std::vector<std::string> &ids) {
    std::vector<const char *> raw = detail::c_strings(ids);
    detail::check(rmq_sort_client_ids(raw.data(), raw.size()));
    std::vector<std::string> sorted(raw.begin(), raw.end());
    ids.swap(sorted);
}

/// Where brokers and consumers are deployed, for MACHINE_ROOM_NEARBY. Called from any thread that
/// allocates with the strategy: implementations must be thread-safe. std::nullopt is "no room".
class MachineRoomResolver {
public:
    virtual ~MachineRoomResolver() = default;
    virtual std::optional<std::string> broker_room(const Queue &queue) = 0;
    virtual std::optional<std::string> consumer_room(const std::string &client_id) = 0;
};

/// Shares of every member; see Strategy::allocate_group.
class GroupAllocation {
public:
    explicit GroupAllocation(rmq_group_allocation *adopted) : view_(adopted) {}

    size_t size() const noexcept { return rmq_group_allocation_member_count(view_.get()); }

    /// Member i: its client id and its share.
    std::pair<std::string, QueueList> member(size_t i) const {
        const char *id = nullptr;
        rmq_queue_list *share = nullptr;
        detail::check(rmq_group_allocation_member(view_.get(), i, &id, &share));
        return {id, QueueList(share)};
    }

    rmq_verification verify() const {
        rmq_verification v{};
        detail::check(rmq_group_allocation_verify(view_.get(), &v));
        return v;
    }

    /// What changes owner from this view to `after`.
    rmq_movement movement_to(const GroupAllocation &after) const {
        rmq_movement m{};
        detail::check(rmq_group_allocation_movement(view_.get(), after.view_.get(), &m));
        return m;
    }

private:
    std::unique_ptr<rmq_group_allocation, detail::Deleter<rmq_group_allocation, rmq_group_allocation_free>> view_;
};

/// An allocation strategy. Copies share one immutable strategy; safe to use from many threads.
class Strategy {
public:
    /// By config name and JSON parameters ("averagely", "consistent_hash" with
    /// {"virtual_node_count": 10}, ...); empty params for none.
    static Strategy from_config(const std::string &name, const std::string &params_json = "") {
        return make([&](rmq_strategy **out) { return rmq_strategy_from_config(name.c_str(), params_json.empty() ? nullptr : params_json.c_str(), out); });
    }
    static Strategy averagely() { return make(rmq_strategy_averagely_new); }
    static Strategy circle() { return make(rmq_strategy_circle_new); }
    static Strategy consistent_hash(int64_t virtual_node_count = 10) {
        return make([&](rmq_strategy **out) { return rmq_strategy_consistent_hash_new(virtual_node_count, out); });
    }
    /// std::nullopt: the idc set is unset (Java's null).
    static Strategy by_machine_room(const std::optional<std::vector<std::string>> &idcs) {
        return make([&](rmq_strategy **out) {
            if (!idcs) return rmq_strategy_by_machine_room_new(nullptr, 0, out);
            std::vector<const char *> raw = detail::c_strings(*idcs);
            // A non-NULL pointer even when empty: an empty set, not an unset one.
            static const char *const none[1] = {nullptr};
            return rmq_strategy_by_machine_room_new(raw.empty() ? none : raw.data(), raw.size(), out);
        });
    }
    /// BALANCED_STICKY (experimental): members ranked by `key` (`separator` only with
    /// RMQ_STABLE_KEY_BEFORE), weighted by stable key (members not listed weigh 1).
    static Strategy balanced_sticky(rmq_stable_key key = RMQ_STABLE_KEY_CLIENT_ID, const std::optional<std::string> &separator = std::nullopt,
                                    const std::map<std::string, uint32_t> &weights = {}) {
        return make([&](rmq_strategy **out) {
            std::vector<const char *> keys;
            std::vector<uint32_t> values;
            for (const auto &[k, w] : weights) {
                keys.push_back(k.c_str());
                values.push_back(w);
            }
            return rmq_strategy_balanced_sticky_new(static_cast<uint32_t>(key), separator ? separator->c_str() : nullptr, keys.data(), values.data(),
                                                    keys.size(), out);
        });
    }
    /// std::nullopt: no list (allocate then returns std::nullopt, Java's null).
    static Strategy by_config(const std::optional<QueueList> &queues) {
        return make([&](rmq_strategy **out) { return rmq_strategy_by_config_new(queues ? queues->get() : nullptr, out); });
    }
    static Strategy machine_room_nearby(const Strategy &inner, std::shared_ptr<MachineRoomResolver> resolver) {
        auto *owned = new std::shared_ptr<MachineRoomResolver>(std::move(resolver));
        rmq_machine_room_resolver c{owned, &Strategy::broker_room_cb, &Strategy::consumer_room_cb, &Strategy::free_resolver_cb};
        try {
            return make([&](rmq_strategy **out) { return rmq_strategy_machine_room_nearby_new(inner.get(), &c, out); });
        } catch (...) {
            delete owned;  // on failure the caller (we) still owns user_data
            throw;
        }
    }

    /// Java's getName().
    std::string name() const { return rmq_strategy_name(get()); }

    /// The share of `current_id`; std::nullopt is Java's null (CONFIG without a list).
    std::optional<QueueList> allocate(const std::string &group, const std::string &current_id, const QueueList &queues,
                                      const std::vector<std::string> &ids) const {
        std::vector<const char *> raw = detail::c_strings(ids);
        rmq_queue_list *out = nullptr;
        detail::check(rmq_strategy_allocate(get(), group.c_str(), current_id.c_str(), queues.get(), raw.data(), raw.size(), &out));
        if (!out) return std::nullopt;
        return QueueList(out);
    }

    /// The same share as positions into `queues` (no list is built).
    std::vector<size_t> allocate_positions(const std::string &group, const std::string &current_id, const QueueList &queues,
                                           const std::vector<std::string> &ids) const {
        std::vector<const char *> raw = detail::c_strings(ids);
        std::vector<size_t> positions(queues.size());
        size_t n = 0;
        detail::check(rmq_strategy_allocate_positions(get(), group.c_str(), current_id.c_str(), queues.get(), raw.data(), raw.size(),
                                                      positions.data(), positions.size(), &n));
        positions.resize(n);
        return positions;
    }

    GroupAllocation allocate_group(const std::string &group, const QueueList &queues, const std::vector<std::string> &ids) const {
        std::vector<const char *> raw = detail::c_strings(ids);
        rmq_group_allocation *out = nullptr;
        detail::check(rmq_strategy_allocate_group(get(), group.c_str(), queues.get(), raw.data(), raw.size(), &out));
        return GroupAllocation(out);
    }

    const rmq_strategy *get() const noexcept { return strategy_.get(); }

private:
    explicit Strategy(rmq_strategy *raw) : strategy_(raw, rmq_strategy_free) {}

    template <typename F>
    static Strategy make(F &&build) {
        rmq_strategy *raw = nullptr;
        detail::check(build(&raw));
        return Strategy(raw);
    }

    static int32_t room_result(const std::optional<std::string> &room, const char **out) {
        // Copied by the library before it calls any callback again on this thread.
        thread_local std::string buffer;
        if (!room) {
            *out = nullptr;
            return 0;
        }
        buffer = *room;
        *out = buffer.c_str();
        return 0;
    }

    static int32_t broker_room_cb(void *user_data, const char *topic, const char *broker, int32_t queue_id, const char **room) noexcept {
        try {
            auto &resolver = *static_cast<std::shared_ptr<MachineRoomResolver> *>(user_data);
            return room_result(resolver->broker_room(Queue{topic, broker, queue_id}), room);
        } catch (...) {
            return -1;
        }
    }

    static int32_t consumer_room_cb(void *user_data, const char *client_id, const char **room) noexcept {
        try {
            auto &resolver = *static_cast<std::shared_ptr<MachineRoomResolver> *>(user_data);
            return room_result(resolver->consumer_room(client_id), room);
        } catch (...) {
            return -1;
        }
    }

    static void free_resolver_cb(void *user_data) noexcept { delete static_cast<std::shared_ptr<MachineRoomResolver> *>(user_data); }

    std::shared_ptr<rmq_strategy> strategy_;
};

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

#endif  // ROCKETMQ_REBALANCE_HPP
