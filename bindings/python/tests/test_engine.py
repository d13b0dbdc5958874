"""The rebalance engine with a host written in Python."""

from typing import Any, Dict, List, Optional, Set

import pytest

import rocketmq_rebalance as rr

QS = [rr.MessageQueue("T", "b", i) for i in range(4)]


class RecordingHost:
    """A host that answers from dicts and records every call."""

    def __init__(self) -> None:
        self.calls: List[str] = []
        self.offsets: Dict[rr.MessageQueue, Optional[int]] = {}
        self.refuse: Set[rr.MessageQueue] = set()
        self.consuming: Set[rr.MessageQueue] = set()
        self.fail: Dict[str, BaseException] = {}

    def _hit(self, name: str, *args: Any) -> None:
        self.calls.append(name)
        if name in self.fail:
            raise self.fail[name]

    def lock(self, broker: str, queues: List[rr.MessageQueue]) -> List[rr.MessageQueue]:
        self._hit("lock")
        return [q for q in queues if q not in self.refuse]

    def unlock(self, broker: str, queues: List[rr.MessageQueue]) -> None:
        self._hit("unlock")

    def read_offset(self, queue: rr.MessageQueue, source: str) -> Optional[int]:
        self._hit("read_offset")
        return self.offsets.get(queue)

    def persist_offset(self, queue: rr.MessageQueue) -> None:
        self._hit("persist_offset")

    def remove_offset(self, queue: rr.MessageQueue) -> None:
        self._hit("remove_offset")

    def max_offset(self, queue: rr.MessageQueue) -> int:
        self._hit("max_offset")
        return 100

    def search_offset(self, queue: rr.MessageQueue, timestamp_ms: int) -> int:
        self._hit("search_offset")
        return 42

    def try_consume_lock(self, queue: rr.MessageQueue, generation: int, wait_ms: int) -> bool:
        self._hit("try_consume_lock")
        return queue not in self.consuming

    def release_consume_lock(self, queue: rr.MessageQueue, generation: int) -> None:
        self._hit("release_consume_lock")

    def dispatch_pull(self, queue: rr.MessageQueue, offset: int, delay_ms: int, generation: int) -> None:
        self._hit("dispatch_pull")

    def queue_set_changed(self, topic: str, all_queues: List[rr.MessageQueue], divided: List[rr.MessageQueue]) -> None:
        self._hit("queue_set_changed")

    def schedule_rebalance(self, delay_ms: int) -> None:
        self._hit("schedule_rebalance")


def test_a_round_acquires_and_reports_typed_objects() -> None:
    r = rr.Rebalancer("g", "c1", rr.Averagely())
    host = RecordingHost()
    host.offsets[QS[0]] = 7
    report = r.rebalance_topic("T", QS, ["c2", "c1"], 1_000, host)
    assert isinstance(report, rr.RoundReport) and report.changed and report.balanced
    assert report.allocation == QS[:2]
    assert [(a.queue, a.start_offset) for a in report.acquired] == [(QS[0], 7), (QS[1], 100)]
    assert host.calls.count("dispatch_pull") == 2 and host.calls.count("queue_set_changed") == 1
    assert [q for q, _ in r.held()] == QS[:2] and isinstance(r.held()[0][1], rr.QueueState)
    gen = report.acquired[0].generation
    assert r.is_consumable(QS[0], gen, 2_000) and r.record_pull(QS[0], gen, 2_000)


def test_a_host_that_raises_fails_only_that_step() -> None:
    r = rr.Rebalancer("g", "c1", rr.Averagely())
    host = RecordingHost()
    host.fail["read_offset"] = ConnectionError("store down")
    report = r.rebalance_topic("T", QS[:1], ["c1"], 0, host)
    assert report.acquired == [] and report.skipped[0].reason == "offset_unavailable"
    assert "store down" in (report.skipped[0].detail or "")
    assert not report.balanced
    # The next round, with the store back, repairs it.
    del host.fail["read_offset"]
    assert len(r.rebalance_topic("T", QS[:1], ["c1"], 1_000, host).acquired) == 1
    # A void callback that raises is reported as a warning.
    host.fail["queue_set_changed"] = RuntimeError("listener bug")
    report = r.rebalance_topic("T", QS[:2], ["c1"], 2_000, host)
    assert any(w.kind == "callback_failed" and "listener bug" in (w.detail or "") for w in report.warnings)


class TopicFailingHost(RecordingHost):
    """dispatch_pull raises for the queues of one topic only."""

    def __init__(self, failing_topic: str) -> None:
        super().__init__()
        self.failing_topic = failing_topic

    def dispatch_pull(self, queue: rr.MessageQueue, offset: int, delay_ms: int, generation: int) -> None:
        self._hit("dispatch_pull")
        if queue.topic == self.failing_topic:
            raise RuntimeError(f"no pull thread for {queue.topic}:{queue.queue_id}")


def test_a_failed_dispatch_pull_is_reported_on_its_own_topic_only() -> None:
    r = rr.Rebalancer("g", "c1", rr.Averagely())
    for topic in ("A", "M", "Z"):
        r.subscribe(topic)
    views = {t: ([rr.MessageQueue(t, "b", i) for i in range(2)], ["c1"]) for t in ("A", "M", "Z")}
    reports = r.rebalance_all(views, 0, TopicFailingHost("A"))
    failures = {rep.topic: [w.detail for w in rep.warnings if w.kind == "callback_failed"] for rep in reports}
    assert failures == {
        "A": ["dispatch_pull: RuntimeError: no pull thread for A:0", "dispatch_pull: RuntimeError: no pull thread for A:1"],
        "M": [],
        "Z": [],
    }


def test_orderly_lock_refusal_and_deferred_release() -> None:
    r = rr.Rebalancer("g", "c1", rr.Averagely(), orderly=True)
    host = RecordingHost()
    host.refuse.add(QS[1])
    report = r.rebalance_topic("T", QS[:2], ["c1"], 0, host)
    assert [s.reason for s in report.skipped] == ["lock_refused"] and "schedule_rebalance" in host.calls
    host.consuming.add(QS[0])
    report = r.rebalance_topic("T", QS[:2], ["c0", "c1"], 1_000, host)
    assert [d.reason for d in report.deferred] == ["consume_in_progress"]
    host.consuming.clear()
    assert [x.queue for x in r.rebalance_topic("T", QS[:2], ["c0", "c1"], 2_000, host).released] == [QS[0]]


def test_keyboard_interrupt_stops_the_round_and_propagates() -> None:
    r = rr.Rebalancer("g", "c1", rr.Averagely())
    host = RecordingHost()
    host.fail["max_offset"] = KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt):
        r.rebalance_topic("T", QS[:2], ["c1"], 0, host)
    assert host.calls.count("max_offset") == 1, "no Python call after the interrupt"
    assert r.held() == [], "the table stays defined: nothing half-acquired"
    del host.fail["max_offset"]
    assert len(r.rebalance_topic("T", QS[:2], ["c1"], 1_000, host).acquired) == 2


def test_all_topics_lock_renewal_drop_and_shutdown() -> None:
    r = rr.Rebalancer("g", "c1", rr.Averagely(), orderly=True, semantics="java", timing={"lock_valid_ms": 10_000})
    host = RecordingHost()
    r.subscribe("T")
    reports = r.rebalance_all({"T": (QS, ["c1"])}, 0, host)
    assert len(reports[0].acquired) == 4
    lock = r.lock_all(5_000, host)
    assert lock.renewed == QS and lock.lost == []
    assert not r.is_consumable(QS[0], reports[0].acquired[0].generation, 16_000), "lock_valid_ms was overridden"
    assert r.drop_queue(QS[0], 6_000, host).released[0].reason == "requested"
    assert {x.reason for x in r.shutdown(host).released} == {"shutdown"} and r.held() == []


def test_bad_configuration_is_a_typed_error() -> None:
    with pytest.raises(rr.InvalidParametersError):
        rr.Rebalancer("g", "c1", rr.Averagely(), model="peer_to_peer")
    with pytest.raises(rr.InvalidParametersError, match="push consumers only"):
        rr.Rebalancer("g", "c1", rr.Averagely(), orderly=True, consume_type="pull")
    with pytest.raises(TypeError):
        rr.Rebalancer("g", "c1", "AVG")  # type: ignore[arg-type]
