// The C++ wrapper: RAII, exceptions, containers, resolvers and hosts written in C++ (including
// ones that throw), and one Strategy shared by 16 threads.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "rocketmq_rebalance.hpp"

namespace rr = rocketmq_rebalance;

namespace {

std::vector<int32_t> ids_of(const rr::QueueList &list) {
    std::vector<int32_t> out;
    for (const auto &q : list.to_vector()) out.push_back(q.queue_id);
    return out;
}

TEST(QueueList, PushGetSortAndBounds) {
    rr::QueueList list{{"T", "b", 2}, {"T", "a", 9}, {"S", "z", 1}};
    EXPECT_EQ(list.size(), 3u);
    list.sort();
    EXPECT_EQ(ids_of(list), (std::vector<int32_t>{1, 9, 2}));
    EXPECT_EQ(list[1], (rr::Queue{"T", "a", 9}));
    try {
        list.at(3);
        FAIL() << "no exception past the end";
    } catch (const rr::Error &e) {
        EXPECT_EQ(e.code(), RMQ_RESULT_OUT_OF_RANGE);
    }
    EXPECT_THROW(list.push("T", "\xff", 0), rr::Error);
}

TEST(Order, ClientIdsSortInJavaOrder) {
    // U+1F600 (a surrogate pair in UTF-16) sorts before U+FF61 in Java, after it in strcmp.
    std::vector<std::string> ids = {"\xEF\xBD\xA1", "\xF0\x9F\x98\x80", "b", "a"};
    rr::sort_client_ids(ids);
    EXPECT_EQ(ids, (std::vector<std::string>{"a", "b", "\xF0\x9F\x98\x80", "\xEF\xBD\xA1"}));
}

TEST(Strategy, AveragelyByHand) {
    // 10 queues, 3 ids: AVG blocks of 4, 3, 3.
    auto s = rr::Strategy::averagely();
    EXPECT_EQ(s.name(), "AVG");
    auto queues = rr::QueueList::range("T", "b", 10);
    std::vector<std::string> ids = {"a", "b", "c"};
    EXPECT_EQ(ids_of(*s.allocate("g", "a", queues, ids)), (std::vector<int32_t>{0, 1, 2, 3}));
    EXPECT_EQ(ids_of(*s.allocate("g", "c", queues, ids)), (std::vector<int32_t>{7, 8, 9}));
    EXPECT_EQ(s.allocate_positions("g", "b", queues, ids), (std::vector<size_t>{4, 5, 6}));
    // Circle deals round-robin: b gets 1, 4, 7.
    EXPECT_EQ(ids_of(*rr::Strategy::circle().allocate("g", "b", queues, ids)), (std::vector<int32_t>{1, 4, 7}));
}

TEST(Strategy, ErrorsCarryCodeAndJavaException) {
    auto s = rr::Strategy::from_config("consistent_hash");
    auto queues = rr::QueueList::range("T", "b", 4);
    try {
        s.allocate("g", "", queues, {"a"});
        FAIL() << "no exception for an empty current id";
    } catch (const rr::Error &e) {
        EXPECT_EQ(e.code(), RMQ_RESULT_EMPTY_CURRENT_ID);
        EXPECT_EQ(e.java_exception(), "IllegalArgumentException");
        EXPECT_STREQ(e.what(), "currentCID is empty");
    }
    try {
        rr::Strategy::from_config("consistent_hash", R"({"virtual_node_count": "ten"})");
        FAIL() << "no exception for a virtual node count that is a string";
    } catch (const rr::Error &e) {
        // The core's full text names the parameter; the code's generic text would not.
        EXPECT_EQ(e.code(), RMQ_RESULT_INVALID_PARAMETERS);
        EXPECT_NE(std::string(e.what()).find("virtual_node_count"), std::string::npos) << e.what();
    }
    EXPECT_THROW(rr::Strategy::from_config("no_such_strategy"), rr::Error);
    EXPECT_THROW(rr::Strategy::consistent_hash(-1), rr::Error);
    try {
        rr::Strategy::by_machine_room(std::nullopt).allocate("g", "a", rr::QueueList{{"T", "hz@b", 0}}, {"a"});
        FAIL();
    } catch (const rr::Error &e) {
        EXPECT_EQ(e.java_exception(), "NullPointerException");
    }
}

TEST(Strategy, BalancedStickyWeightsAndOrder) {
    // 12 queues, hosts 10.0.0.1 (weight 2) and 10.0.0.2: shares 8 and 4 exactly, whatever the order.
    auto s = rr::Strategy::balanced_sticky(RMQ_STABLE_KEY_HOST, std::nullopt, {{"10.0.0.1", 2}});
    EXPECT_EQ(s.name().rfind("BALANCED_STICKY-host-weights:", 0), 0u) << s.name();
    EXPECT_EQ(s.name(), rr::Strategy::from_config("balanced_sticky", R"({"stable_key": "host", "weights": {"10.0.0.1": 2}})").name());
    auto queues = rr::QueueList::range("T", "b", 12);
    std::vector<std::string> ids = {"10.0.0.2@9", "10.0.0.1@3"};
    auto heavy = s.allocate("g", "10.0.0.1@3", queues, ids)->to_vector();
    EXPECT_EQ(heavy.size(), 8u);
    std::vector<std::string> reversed(ids.rbegin(), ids.rend());
    EXPECT_EQ(s.allocate("g", "10.0.0.1@3", queues, reversed)->to_vector(), heavy);
    EXPECT_EQ(s.allocate("g", "10.0.0.2@9", queues, ids)->size(), 4u);
    EXPECT_THROW(rr::Strategy::balanced_sticky(RMQ_STABLE_KEY_HOST, std::nullopt, {{"10.0.0.1", 0}}), rr::Error);
    EXPECT_THROW(rr::Strategy::balanced_sticky(RMQ_STABLE_KEY_BEFORE), rr::Error);
    EXPECT_EQ(rr::Strategy::balanced_sticky(RMQ_STABLE_KEY_BEFORE, "#").name(), "BALANCED_STICKY-before:#");
}

TEST(Strategy, BalancedStickyV2CapsAndDefaults) {
    // The defaults are the config's defaults; 12 queues over 5 members with no overload and no
    // underload: totals 2 or 3 (floor and ceiling of 12/5), 12 in all, whatever the order.
    EXPECT_EQ(rr::Strategy::balanced_sticky_v2().name(), rr::Strategy::from_config("balanced_sticky_v2", "{}").name());
    auto s = rr::Strategy::balanced_sticky_v2(RMQ_STABLE_KEY_HOST, std::nullopt, 0, 0);
    EXPECT_EQ(s.name(), "BALANCED_STICKY_V2-host-overload:0-underload:0");
    auto queues = rr::QueueList::range("T", "b", 12);
    std::vector<std::string> ids = {"10.0.0.1@1", "10.0.0.2@1", "10.0.0.3@1", "10.0.0.4@1", "10.0.0.5@1"};
    std::vector<std::string> reversed(ids.rbegin(), ids.rend());
    size_t total = 0;
    for (const auto &id : ids) {
        auto mine = s.allocate("g", id, queues, ids)->to_vector();
        EXPECT_TRUE(mine.size() == 2 || mine.size() == 3) << id;
        EXPECT_EQ(s.allocate("g", id, queues, reversed)->to_vector(), mine);
        total += mine.size();
    }
    EXPECT_EQ(total, 12u);
    EXPECT_THROW(rr::Strategy::balanced_sticky_v2(RMQ_STABLE_KEY_HOST, std::nullopt, 401), rr::Error);
    EXPECT_THROW(rr::Strategy::balanced_sticky_v2(RMQ_STABLE_KEY_BEFORE), rr::Error);
}

TEST(Strategy, ConfigNullAndOwnList) {
    auto queues = rr::QueueList::range("T", "b", 4);
    EXPECT_FALSE(rr::Strategy::by_config(std::nullopt).allocate("g", "a", queues, {"a"}).has_value());
    auto mine = rr::Strategy::by_config(rr::QueueList{{"X", "y", 3}}).allocate("g", "a", queues, {"a"});
    ASSERT_TRUE(mine.has_value());
    EXPECT_EQ(mine->to_vector(), (std::vector<rr::Queue>{{"X", "y", 3}}));
    // An empty idc set is not an unset one: nothing matches, no exception.
    EXPECT_TRUE(rr::Strategy::by_machine_room(std::vector<std::string>{}).allocate("g", "a", rr::QueueList{{"T", "hz@b", 0}}, {"a"})->empty());
}

class PrefixRooms : public rr::MachineRoomResolver {
public:
    bool fail = false;
    std::optional<std::string> broker_room(const rr::Queue &q) override {
        if (fail) throw std::runtime_error("resolver down");
        return q.broker_name.substr(0, q.broker_name.find('-'));
    }
    std::optional<std::string> consumer_room(const std::string &id) override { return id.substr(0, id.find('@')); }
};

TEST(Strategy, NearbyWithACppResolver) {
    auto rooms = std::make_shared<PrefixRooms>();
    auto s = rr::Strategy::machine_room_nearby(rr::Strategy::averagely(), rooms);
    EXPECT_EQ(s.name(), "MACHINE_ROOM_NEARBY-AVG");
    rr::QueueList queues{{"T", "hz-a", 0}, {"T", "hz-a", 1}, {"T", "sh-a", 0}, {"T", "sh-a", 1}};
    std::vector<std::string> ids = {"hz@1", "sh@1"};
    EXPECT_EQ(s.allocate("g", "hz@1", queues, ids)->to_vector(), (std::vector<rr::Queue>{{"T", "hz-a", 0}, {"T", "hz-a", 1}}));
    rooms->fail = true;  // an exception in the resolver is a callback failure, not a crash
    try {
        s.allocate("g", "hz@1", queues, ids);
        FAIL();
    } catch (const rr::Error &e) {
        EXPECT_EQ(e.code(), RMQ_RESULT_CALLBACK_FAILED);
    }
}

TEST(GroupView, MovementWhenOneJoins) {
    // AVG over 8 queues: {a,b,c} = 0-2, 3-5, 6-7; {a,b,c,d} = 0-1, 2-3, 4-5, 6-7: 5 move.
    auto s = rr::Strategy::averagely();
    auto queues = rr::QueueList::range("T", "b", 8);
    auto before = s.allocate_group("g", queues, {"a", "b", "c"});
    auto after = s.allocate_group("g", queues, {"a", "b", "c", "d"});
    EXPECT_TRUE(before.verify().is_partition);
    EXPECT_EQ(before.movement_to(after).moved, 5u);
    EXPECT_EQ(after.member(3).first, "d");
    EXPECT_EQ(ids_of(after.member(3).second), (std::vector<int32_t>{6, 7}));
}

TEST(Strategy, SixteenThreadsShareOneStrategy) {
    auto s = rr::Strategy::consistent_hash(10);
    auto queues = rr::QueueList::range("T", "b", 64);
    std::vector<std::string> ids;
    for (int i = 0; i < 9; i++) ids.push_back("10.0.0." + std::to_string(i) + "@1");
    std::map<std::string, std::vector<size_t>> expected;
    for (const auto &id : ids) expected[id] = s.allocate_positions("g", id, queues, ids);
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 16; t++)
        threads.emplace_back([&] {
            for (int round = 0; round < 200; round++)
                for (const auto &id : ids)
                    if (s.allocate_positions("g", id, queues, ids) != expected[id]) mismatches++;
        });
    for (auto &t : threads) t.join();
    EXPECT_EQ(mismatches.load(), 0);
}

// An in-memory broker whose lock call can be made to throw.
class MemoryHost : public rr::Host {
public:
    bool lock_throws = false;
    std::map<int32_t, int64_t> dispatched;
    std::vector<rr::Queue> lock(const std::string &, const std::vector<rr::Queue> &queues) override {
        if (lock_throws) throw std::runtime_error("broker unreachable");
        return queues;
    }
    void unlock(const std::string &, const std::vector<rr::Queue> &) override {}
    std::optional<int64_t> read_offset(const rr::Queue &q, uint32_t) override {
        if (q.queue_id == 0) return 42;
        return std::nullopt;
    }
    void persist_offset(const rr::Queue &) override {}
    int64_t max_offset(const rr::Queue &) override { return 100; }
    int64_t search_offset(const rr::Queue &, int64_t) override { return 0; }
    void dispatch_pull(const rr::Queue &q, int64_t offset, uint64_t, uint64_t) override { dispatched[q.queue_id] = offset; }
};

TEST(Rebalancer, HostExceptionsAreStepFailuresAndTheNextRoundRepairs) {
    rr::Rebalancer r(R"({"group": "g", "client_id": "a", "orderly": true})", rr::Strategy::averagely());
    r.subscribe("T");
    MemoryHost host;
    auto queues = rr::QueueList::range("T", "b", 4);
    host.lock_throws = true;
    auto report = r.rebalance_topic("T", &queues, std::vector<std::string>{"a", "b"}, 1000, host);
    EXPECT_EQ(report.summary.allocation, 2u);
    EXPECT_EQ(report.summary.acquired, 0u);
    EXPECT_EQ(report.summary.skipped, 2u);
    EXPECT_NE(report.json.find("lock callback returned 1"), std::string::npos);
    EXPECT_TRUE(r.held().empty());

    host.lock_throws = false;
    report = r.rebalance_topic("T", &queues, std::vector<std::string>{"a", "b"}, 2000, host);
    EXPECT_EQ(report.summary.acquired, 2u);
    EXPECT_EQ(host.dispatched, (std::map<int32_t, int64_t>{{0, 42}, {1, 100}}));
    EXPECT_EQ(r.held().size(), 2u);
    EXPECT_EQ(r.lock_all(3000, host).renewed, 2u);

    report = r.shutdown(host);
    EXPECT_EQ(report.summary.released, 2u);
    EXPECT_TRUE(r.held().empty());
    EXPECT_THROW(rr::Rebalancer("{}", rr::Strategy::averagely()), rr::Error);
}

// The optional callbacks, shutdown while a listener runs, and re-entry from a callback.
class SafeHost : public MemoryHost {
public:
    std::set<int32_t> consuming;
    std::map<int32_t, int64_t> committed;
    std::vector<int32_t> stopped;
    rr::Rebalancer *self = nullptr;
    bool reentry_threw = false;
    bool try_consume_lock(const rr::Queue &q, uint64_t, uint64_t) override { return consuming.count(q.queue_id) == 0; }
    void stop_pull(const rr::Queue &q, uint64_t) override {
        stopped.push_back(q.queue_id);
        try {
            self->held();
        } catch (const rr::Error &) {
            reentry_threw = true;
        }
    }
    bool commits_offsets() const override { return true; }
    void commit_offset(const rr::Queue &q, int64_t offset) override { committed[q.queue_id] = offset; }
};

TEST(Rebalancer, OptionalCallbacksAndShutdownWhileAListenerRuns) {
    rr::Rebalancer r(R"({"group": "g", "client_id": "a", "orderly": true})", rr::Strategy::averagely());
    SafeHost host;
    host.self = &r;
    auto queues = rr::QueueList::range("T", "b", 2);
    auto report = r.rebalance_topic("T", &queues, std::vector<std::string>{"a"}, 0, host);
    EXPECT_EQ(report.summary.acquired, 2u);
    EXPECT_EQ(host.committed, (std::map<int32_t, int64_t>{{1, 100}}));  // queue 0 had 42 committed
    host.consuming.insert(0);
    report = r.shutdown(host, 1000);
    EXPECT_EQ(report.summary.deferred, 1u);
    EXPECT_EQ(report.summary.released, 1u);
    EXPECT_EQ(host.stopped, (std::vector<int32_t>{0, 1}));
    EXPECT_TRUE(host.reentry_threw);
    EXPECT_TRUE(r.is_shut_down());
    EXPECT_THROW(r.rebalance_topic("T", &queues, std::vector<std::string>{"a"}, 2000, host), rr::Error);
    EXPECT_EQ(r.lock_all(2000, host).renewed, 1u);
    host.consuming.clear();
    EXPECT_EQ(r.shutdown(host, 3000).summary.released, 1u);
    EXPECT_TRUE(r.held().empty());
}

}  // namespace
