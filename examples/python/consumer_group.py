"""A consumer group in one process: each consumer is a thread running rocketmq_rebalance's
Rebalancer against an in-memory broker, through a join and a leave.

    python examples/python/consumer_group.py
"""

from __future__ import annotations

import threading
import time
from typing import Dict, Iterable, List, Optional, Tuple

import rocketmq_rebalance as rr

TOPIC = "OrderTopic"
PRINT = threading.Lock()  # one line at a time from several threads


class Broker:
    """The broker side: queues, committed offsets, orderly locks and the consumer registry."""

    def __init__(self, queues: int) -> None:
        self.queues = [rr.MessageQueue(TOPIC, "broker-a", i) for i in range(queues)]
        self.committed: Dict[rr.MessageQueue, int] = {}
        self.locks: Dict[rr.MessageQueue, str] = {}
        self.consumers: List[str] = []
        self.mutex = threading.Lock()

    def view(self) -> Tuple[List[rr.MessageQueue], List[str]]:
        with self.mutex:
            return list(self.queues), list(self.consumers)


class Consumer(rr.Host):
    """One client: its host callbacks talk to the broker; its thread runs a round every 50 ms."""

    def __init__(self, broker: Broker, client_id: str) -> None:
        self.broker = broker
        self.client_id = client_id
        self.rebalancer = rr.Rebalancer("GID_demo", client_id, rr.Averagely(), orderly=True)
        self.offsets: Dict[rr.MessageQueue, int] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, name=client_id)

    # --- rr.Host ---
    def lock(self, broker: str, queues: List[rr.MessageQueue]) -> Iterable[rr.MessageQueue]:
        with self.broker.mutex:
            got = [q for q in queues if self.broker.locks.setdefault(q, self.client_id) == self.client_id]
        return got

    def unlock(self, broker: str, queues: List[rr.MessageQueue]) -> None:
        with self.broker.mutex:
            for q in queues:
                if self.broker.locks.get(q) == self.client_id:
                    del self.broker.locks[q]

    def read_offset(self, queue: rr.MessageQueue, source: str) -> Optional[int]:
        with self.broker.mutex:
            return self.broker.committed.get(queue)

    def persist_offset(self, queue: rr.MessageQueue) -> None:
        if queue in self.offsets:
            with self.broker.mutex:
                self.broker.committed[queue] = self.offsets[queue]

    def remove_offset(self, queue: rr.MessageQueue) -> None:
        self.offsets.pop(queue, None)

    def max_offset(self, queue: rr.MessageQueue) -> int:
        return 0

    def search_offset(self, queue: rr.MessageQueue, timestamp_ms: int) -> int:
        return 0

    def try_consume_lock(self, queue: rr.MessageQueue, generation: int, wait_ms: int) -> bool:
        return True

    def release_consume_lock(self, queue: rr.MessageQueue, generation: int) -> None:
        pass

    def dispatch_pull(self, queue: rr.MessageQueue, offset: int, delay_ms: int, generation: int) -> None:
        self.offsets[queue] = offset

    def queue_set_changed(self, topic: str, all_queues: List[rr.MessageQueue], divided: List[rr.MessageQueue]) -> None:
        with PRINT:
            print(f"  {self.client_id}: now owns {sorted(q.queue_id for q in divided)}")

    def schedule_rebalance(self, delay_ms: int) -> None:
        pass

    # --- the client ---
    def run(self) -> None:
        while not self.stop.is_set():
            queues, ids = self.broker.view()
            self.rebalancer.rebalance_topic(TOPIC, queues, ids, int(time.monotonic() * 1000), self)
            self.stop.wait(0.05)
        self.rebalancer.shutdown(self)

    def start(self) -> None:
        with self.broker.mutex:
            self.broker.consumers.append(self.client_id)
        self.thread.start()

    def leave(self) -> None:
        with self.broker.mutex:
            self.broker.consumers.remove(self.client_id)
        self.stop.set()
        self.thread.join()


def owners(consumers: List[Consumer]) -> Dict[str, List[int]]:
    return {c.client_id: [q.queue_id for q, s in c.rebalancer.held() if not s.dropped] for c in consumers}


def settle(broker: Broker, consumers: List[Consumer]) -> None:
    """Waits (at most 5 s) until the group holds exactly what the strategy's group view says."""
    queues, ids = broker.view()
    view = rr.Averagely().allocate_group("GID_demo", rr.sort_like_java(queues), rr.sort_like_java(ids))
    expected = {cid: sorted(q.queue_id for q in qs) for cid, qs in view.items()}
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if {cid: sorted(ids) for cid, ids in owners(consumers).items()} == expected:
            return
        time.sleep(0.05)
    raise RuntimeError(f"the group did not settle: {owners(consumers)}, expected {expected}")


def main() -> None:
    broker = Broker(queues=8)
    group = [Consumer(broker, f"10.0.0.{i}@demo") for i in (1, 2)]
    print("two consumers start")
    for c in group:
        c.start()
    settle(broker, group)
    print("who owns what:", owners(group))

    print("a third consumer joins")
    third = Consumer(broker, "10.0.0.3@demo")
    third.start()
    group.append(third)
    settle(broker, group)
    print("who owns what:", owners(group))

    print("the first consumer leaves")
    group[0].leave()
    group = group[1:]
    settle(broker, group)
    print("who owns what:", owners(group))
    for c in group:
        c.leave()


if __name__ == "__main__":
    main()
