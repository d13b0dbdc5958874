"""The engine's safe-mode promises as a Python host meets them: re-entry, shutdown while a listener
runs, lost locks, start offsets, typed reasons, strict configuration, optional callbacks."""

import threading
import typing
from typing import List, Optional

import pytest

import rocketmq_rebalance as rr
from rocketmq_rebalance import _engine, _native

from test_engine import QS, RecordingHost


class FullHost(RecordingHost):
    """A host with the optional callbacks too."""

    def __init__(self) -> None:
        super().__init__()
        self.committed: List[tuple] = []
        self.stopped: List[tuple] = []

    def commit_offset(self, queue: rr.MessageQueue, offset: int) -> None:
        self._hit("commit_offset")
        self.committed.append((queue, offset))
        self.offsets[queue] = offset

    def stop_pull(self, queue: rr.MessageQueue, generation: int) -> None:
        self._hit("stop_pull")
        self.stopped.append((queue, generation))


def test_every_reason_the_core_reports_is_typed() -> None:
    names = _native.report_names()
    for literal, key in [
        (_engine.ReleaseReason, "release_reason"),
        (_engine.DeferReason, "defer_reason"),
        (_engine.SkipReason, "skip_reason"),
        (_engine.WarningKind, "warning"),
        (_engine.RoundSkippedReason, "round_skipped"),
    ]:
        assert list(typing.get_args(literal)) == names[key], key


def test_the_timing_keys_are_the_cores_and_each_is_accepted_and_its_default_holds() -> None:
    # Derived from the core, not written down again: a key added in Rust appears here unasked.
    assert _engine.TIMING_KEYS == tuple(k for k, _ in _native.timing_defaults()) and len(_engine.TIMING_KEYS) >= 9
    assert _engine.TIMING_DEFAULTS["lock_valid_ms"] == 30_000 and _engine.TIMING_DEFAULTS["broker_lock_expiry_ms"] == 60_000
    # The default lock validity is what the engine applies: consumable 30 s after the lock, not after.
    r = rr.Rebalancer("g", "c1", rr.Averagely(), orderly=True, timing=dict(_engine.TIMING_DEFAULTS))
    qs = [rr.MessageQueue("T", "b", 0)]
    gen = r.rebalance_topic("T", qs, ["c1"], 0, RecordingHost()).acquired[0].generation
    assert r.is_consumable(qs[0], gen, 30_000) and not r.is_consumable(qs[0], gen, 30_001)
    with pytest.raises(rr.InvalidParametersError, match="lock_valid_msec"):
        rr.Rebalancer("g", "c1", rr.Averagely(), timing={"lock_valid_msec": 1})


def test_a_call_from_inside_a_callback_raises_reentrant_error_at_once() -> None:
    r = rr.Rebalancer("g", "c1", rr.Averagely())
    seen: List[BaseException] = []
    answers: List[Optional[int]] = []

    class Reentering(RecordingHost):
        def dispatch_pull(self, queue: rr.MessageQueue, offset: int, delay_ms: int, generation: int) -> None:
            try:
                r.held()
            except rr.RebalanceError as e:
                seen.append(e)
            # The consume-thread queries never wait: they answer from inside a callback too.
            answers.append(r.generation(queue))
            r.is_consumable(queue, generation, 0)

    report = r.rebalance_topic("T", QS[:1], ["c1"], 0, Reentering())
    assert len(report.acquired) == 1
    assert len(seen) == 1 and isinstance(seen[0], rr.ReentrantError) and isinstance(seen[0], RuntimeError)
    assert seen[0].java_exception == "IllegalStateException"
    assert answers == [report.acquired[0].generation]


def test_unknown_or_mistyped_timing_keys_are_rejected_by_name() -> None:
    with pytest.raises(rr.InvalidParametersError, match="lock_valid_msec"):
        rr.Rebalancer("g", "c1", rr.Averagely(), timing={"lock_valid_msec": 10})
    with pytest.raises(rr.InvalidParametersError, match="pull_expired_ms"):
        rr.Rebalancer("g", "c1", rr.Averagely(), timing={"pull_expired_ms": "soon"})  # type: ignore[dict-item]
    with pytest.raises(rr.InvalidParametersError, match="lock_valid_ms"):
        rr.Rebalancer("g", "c1", rr.Averagely(), timing={"lock_valid_ms": 90_000})
    r = rr.Rebalancer("g", "c1", rr.Averagely(), timing={key: 1_000 for key in _engine.TIMING_KEYS})
    assert r.subscriptions() == []


def test_locked_is_none_for_queues_that_are_not_locked() -> None:
    host = FullHost()
    concurrent = rr.Rebalancer("g", "c1", rr.Averagely())
    concurrent.rebalance_topic("T", QS[:1], ["c1"], 0, host)
    assert concurrent.held()[0][1].locked is None
    orderly = rr.Rebalancer("g", "c1", rr.Averagely(), orderly=True)
    orderly.rebalance_topic("T", QS[:1], ["c1"], 0, host)
    assert orderly.held()[0][1].locked is True


def test_a_start_offset_from_consume_from_is_committed_once_per_group() -> None:
    host = FullHost()
    r = rr.Rebalancer("g", "c1", rr.Averagely())
    report = r.rebalance_topic("T", QS[:1], ["c1"], 0, host)
    # No committed offset: consume_from (last offset) chose 100, and it was committed at once.
    assert host.committed == [(QS[0], 100)] and report.acquired[0].start_offset == 100
    # The next owner reads the committed 100 instead of applying consume_from again.
    other = rr.Rebalancer("g", "c2", rr.Averagely())
    assert other.rebalance_topic("T", QS[:1], ["c2"], 0, host).acquired[0].start_offset == 100
    assert host.committed == [(QS[0], 100)]
    # A host without commit_offset keeps working, with a warning.
    bare = rr.Rebalancer("g", "c3", rr.Averagely())
    report = bare.rebalance_topic("T", QS[1:2], ["c3"], 0, RecordingHost())
    assert [w.kind for w in report.warnings] == ["start_offset_not_committed"]
    # A failing commit skips the queue (the next round retries).
    failing = FullHost()
    failing.fail["commit_offset"] = ConnectionError("broker down")
    report = rr.Rebalancer("g", "c4", rr.Averagely()).rebalance_topic("T", QS[:1], ["c4"], 0, failing)
    assert [s.reason for s in report.skipped] == ["start_offset_not_committed"] and report.acquired == []


def test_shutdown_leaves_a_running_orderly_call_locked_and_finishes_later() -> None:
    host = FullHost()
    host.offsets.update({q: 5 for q in QS})
    r = rr.Rebalancer("g", "c1", rr.Averagely(), orderly=True)
    r.rebalance_topic("T", QS[:2], ["c1"], 0, host)
    host.consuming.add(QS[0])
    host.calls.clear()
    report = r.shutdown(host, now_ms=1_000)
    assert [(d.queue, d.reason) for d in report.deferred] == [(QS[0], "consume_in_progress")]
    assert [x.queue for x in report.released] == [QS[1]]
    assert host.calls.count("unlock") == 1, "only the idle queue was unlocked"
    assert sorted(q for q, _ in host.stopped) == QS[:2]
    with pytest.raises(rr.ShutDownError):
        r.rebalance_topic("T", QS[:2], ["c1"], 2_000, host)
    with pytest.raises(rr.ShutDownError):
        r.subscribe("U")
    assert r.lock_all(2_000, host).renewed == [QS[0]], "what shutdown left stays locked while its call runs"
    host.consuming.clear()
    report = r.shutdown(host, now_ms=3_000)
    assert [x.queue for x in report.released] == [QS[0]] and r.held() == [] and r.is_shut_down()


def test_java_mode_shutdown_unlocks_a_running_orderly_call() -> None:
    host = FullHost()
    host.offsets.update({q: 5 for q in QS})
    r = rr.Rebalancer("g", "c1", rr.Averagely(), orderly=True, semantics="java")
    r.rebalance_topic("T", QS[:2], ["c1"], 0, host)
    host.consuming.add(QS[0])
    report = r.shutdown(host)
    assert report.deferred == [] and len(report.released) == 2


def test_a_lost_lock_is_never_committed_and_restarts_with_a_new_generation() -> None:
    host = FullHost()
    host.offsets.update({q: 5 for q in QS})
    r = rr.Rebalancer("g", "c1", rr.Averagely(), orderly=True)
    gen = r.rebalance_topic("T", QS[:1], ["c1"], 0, host).acquired[0].generation
    host.refuse.add(QS[0])
    lost = r.lock_all(20_000, host)
    assert lost.lost == [QS[0]] and not r.is_consumable(QS[0], gen, 20_000)
    assert host.stopped == [(QS[0], gen)] and "schedule_rebalance" in host.calls
    host.calls.clear()
    host.refuse.clear()
    host.offsets[QS[0]] = 90  # the other owner committed further meanwhile
    report = r.rebalance_topic("T", QS[:1], ["c1"], 21_000, host)
    assert [(x.reason, x.lock_lost) for x in report.released] == [("lock_lost", True)]
    assert "persist_offset" not in host.calls, "never commit over the new owner"
    assert [(a.start_offset, a.generation > gen) for a in report.acquired] == [(90, True)]


def test_a_broker_restart_signal_stops_consumption_until_relocked() -> None:
    host = FullHost()
    host.offsets.update({q: 5 for q in QS})
    r = rr.Rebalancer("g", "c1", rr.Averagely(), orderly=True)
    gen = r.rebalance_topic("T", QS[:2], ["c1"], 0, host).acquired[0].generation
    assert r.locks_lost("b", 1_000, host).lost == QS[:2]
    assert not r.is_consumable(QS[0], gen, 1_000)
    report = r.rebalance_topic("T", QS[:2], ["c1"], 2_000, host)
    assert len(report.acquired) == 2 and all(a.generation > gen for a in report.acquired)
    java = rr.Rebalancer("g", "c1", rr.Averagely(), orderly=True, semantics="java")
    java.rebalance_topic("T", QS[:1], ["c1"], 0, host)
    assert java.locks_lost("b", 1_000, host).lost == [], "Java has no such signal"


def test_consume_threads_never_wait_for_a_round_blocked_in_a_callback() -> None:
    """A round waits inside try_consume_lock (as a real one does, up to 500 ms, for a consume
    thread's listener call). The consume thread's own queries must answer meanwhile, or the two
    would wait for each other. The round's wait ends when the main thread, after its queries,
    releases it; if a query had waited for the round, the round's wait would have timed out."""
    inside = threading.Event()
    release = threading.Event()
    timed_out: List[bool] = []

    class Blocking(FullHost):
        def try_consume_lock(self, queue: rr.MessageQueue, generation: int, wait_ms: int) -> bool:
            inside.set()
            timed_out.append(not release.wait(timeout=60))
            return True

    host = Blocking()
    host.offsets.update({q: 5 for q in QS})
    r = rr.Rebalancer("g", "c1", rr.Averagely(), orderly=True)
    gen = r.rebalance_topic("T", QS[:2], ["c1"], 0, host).acquired[0].generation
    round_thread = threading.Thread(target=lambda: r.rebalance_topic("T", QS[:2], ["c0", "c1"], 1_000, host))
    round_thread.start()
    assert inside.wait(timeout=60)
    answers = (r.is_consumable(QS[0], gen, 1_000), r.record_pull(QS[0], gen, 1_000), r.generation(QS[0]))
    release.set()
    round_thread.join()
    assert timed_out == [False]
    # Queried while the round was marking QS[0] dropped: the state exists, it is not consumable.
    assert answers == (False, True, gen)


def test_the_report_readers_read_every_field_the_core_reports_and_refuse_one_they_do_not() -> None:
    round_raw, lock_raw, state_raw = _native.report_examples()
    report = _engine.RoundReport._from_native(round_raw)
    assert report.released[0].lock_lost and report.deferred[0].waiting_ms == 1 and report.skipped[0].detail == "x"
    assert [w.kind for w in report.warnings] == ["callback_failed", "duplicate_client_ids"]
    assert _engine.LockReport._from_native(lock_raw).warnings[0].detail == "x"
    assert _engine.QueueState(**state_raw).deferred_since_ms == 5
    for where in (round_raw, round_raw["released"][0], round_raw["deferred"][0], round_raw["acquired"][0], round_raw["skipped"][0], lock_raw):
        where["added_in_rust"] = 1
        with pytest.raises(RuntimeError, match="added_in_rust"):
            _engine.RoundReport._from_native(round_raw) if where is not lock_raw else _engine.LockReport._from_native(lock_raw)
        del where["added_in_rust"]
