// The README's C++ example; the test command builds it with CMake's find_package and runs it.
#include <iostream>

#include <rocketmq_rebalance.hpp>

namespace rr = rocketmq_rebalance;

int main() {
    rr::Strategy strategy = rr::Strategy::averagely();
    rr::QueueList queues = rr::QueueList::range("TopicA", "broker-a", 8);
    std::vector<std::string> ids = {"c2", "c1", "c3"};
    rr::sort_client_ids(ids);

    for (const auto &queue : strategy.allocate("GID_demo", "c1", queues, ids)->to_vector())
        std::cout << queue.topic << "@" << queue.broker_name << ":" << queue.queue_id << "\n";

    // What moves when a fourth consumer joins?
    ids.push_back("c4");
    auto before = strategy.allocate_group("GID_demo", queues, {"c1", "c2", "c3"});
    auto after = strategy.allocate_group("GID_demo", queues, ids);
    std::cout << before.movement_to(after).moved << " of " << queues.size() << " queues move\n";

    try {
        strategy.allocate("GID_demo", "", queues, ids);
    } catch (const rr::Error &e) {
        std::cout << e.java_exception() << ": " << e.what() << "\n";
    }
}
