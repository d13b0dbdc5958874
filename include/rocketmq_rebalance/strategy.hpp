// rocketmq-rebalance for C++17, part 1 of 2: errors, queues, strategies and the group view over
// the C API in rocketmq_rebalance.h. Include <rocketmq_rebalance.hpp> for both parts.
#ifndef ROCKETMQ_REBALANCE_STRATEGY_HPP
#define ROCKETMQ_REBALANCE_STRATEGY_HPP

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

/// A failed call: the code, the core's full message (which parameter, which queue, a callback's
/// own text) and the Java exception the core names for it.
class Error : public std::runtime_error {
public:
    /// For the call that just failed on this thread with `code`: takes its detail.
    explicit Error(rmq_result code) : Error(code, last_detail(code)) {}

    rmq_result code() const noexcept { return code_; }

    /// "IllegalArgumentException", "NullPointerException", "IllegalStateException",
    /// "RuntimeException".
    const std::string &java_exception() const noexcept { return java_exception_; }

private:
    struct Detail {
        std::string message;
        std::string java_exception;
    };

    Error(rmq_result code, Detail detail)
        : std::runtime_error(detail.message), code_(code), java_exception_(std::move(detail.java_exception)) {}

    /// The thread's last error when it is this code's (it is, right after the failing call);
    /// otherwise the code's generic text.
    static Detail last_detail(rmq_result code) {
        if (rmq_last_error_code() == code) {
            size_t n = 0;
            std::string text(256, '\0');
            rmq_result rc = rmq_last_error_message(&text[0], text.size(), &n);
            if (rc == RMQ_RESULT_BUFFER_TOO_SMALL) {
                text.assign(n, '\0');
                rc = rmq_last_error_message(&text[0], text.size(), &n);
            }
            if (rc == RMQ_RESULT_OK) {
                text.resize(n);
                return {text, rmq_last_error_java_exception()};
            }
        }
        char buf[256];
        size_t n = 0;
        const char *name = rmq_result_java_exception(code);
        std::string java = name ? name : "";
        if (rmq_result_message(code, buf, sizeof buf, &n) != RMQ_RESULT_OK) return {"rmq_result " + std::to_string(code), java};
        return {std::string(buf, n), java};
    }

    rmq_result code_;
    std::string java_exception_;
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
    /// BALANCED_STICKY_V2 (experimental): balanced within caps (total at most
    /// ceil(Q * (100 + overload_percent) / (100 * C)), at least floor(Q * (100 - underload_percent)
    /// / (100 * C)), per topic at most ceil(Q_t / C) + 1); members ranked by `key` as for
    /// balanced_sticky.
    static Strategy balanced_sticky_v2(rmq_stable_key key = RMQ_STABLE_KEY_CLIENT_ID, const std::optional<std::string> &separator = std::nullopt,
                                       int64_t overload_percent = RMQ_BALANCED_STICKY_V2_DEFAULT_OVERLOAD_PERCENT,
                                       int64_t underload_percent = RMQ_BALANCED_STICKY_V2_DEFAULT_UNDERLOAD_PERCENT) {
        return make([&](rmq_strategy **out) {
            return rmq_strategy_balanced_sticky_v2_new(static_cast<uint32_t>(key), separator ? separator->c_str() : nullptr, overload_percent,
                                                       underload_percent, out);
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

}  // namespace rocketmq_rebalance

#endif  // ROCKETMQ_REBALANCE_STRATEGY_HPP
