"""The rebalance engine: typed reports, the Host protocol, and the Rebalancer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, Tuple

from typing import Protocol

from . import _native
from ._native import MessageQueue, Strategy


def _mq(raw: Any) -> MessageQueue:
    topic, broker, queue_id = raw
    return MessageQueue(topic, broker, queue_id)


def _only(raw: Dict[str, Any], *names: str) -> Dict[str, Any]:
    """``raw``, checked to carry no field this package does not read. The wheel's Python and its
    native library are one version, so a field that would be dropped here is a bug of this
    package: it fails loudly (and the tests feed every field the core can report)."""
    extra = set(raw) - set(names)
    if extra:
        raise RuntimeError(f"the native library reports {sorted(extra)}, which rocketmq_rebalance does not read: a field was added without its reader")
    return raw


def _kind(raw: Any) -> Tuple[Any, Optional[str]]:
    """Tagged enums arrive as a bare string or as {"kind": ..., "detail": ...}."""
    if isinstance(raw, str):
        return raw, None
    detail = _only(raw, "kind", "detail").get("detail")
    return raw["kind"], None if detail is None else str(detail)


# The reasons the core reports, one Literal each. tests/test_engine.py checks them against the
# core's own lists (`_native.report_names()`), so a reason added in Rust fails until it is here.
ReleaseReason = Literal["not_assigned", "pull_expired", "unsubscribed", "requested", "shutdown", "duplicate_client_id", "restarted", "lock_lost"]
DeferReason = Literal["consume_in_progress", "persist_failed", "unlock_failed"]
SkipReason = Literal["lock_refused", "lock_failed", "offset_unavailable", "start_offset_not_committed"]
WarningKind = Literal["client_id_absent", "duplicate_client_ids", "callback_failed", "stood_down", "start_offset_not_committed"]
RoundSkippedReason = Literal["route_unknown", "client_ids_unavailable", "strategy_failed"]

# The keys of ``timing=`` and their defaults, all in milliseconds, as the core defines them (see
# docs/host-contract.md for each one's meaning). Any other key raises InvalidParametersError.
TIMING_DEFAULTS: Dict[str, int] = dict(_native.timing_defaults())
TIMING_KEYS: Tuple[str, ...] = tuple(TIMING_DEFAULTS)


@dataclass(frozen=True)
class Released:
    """A queue given up: offset committed (best effort), cached offset dropped, unlocked if orderly."""

    queue: MessageQueue
    generation: int
    reason: ReleaseReason
    forced: bool
    """Java mode: unlocked while the listener may still run."""
    persist_failed: Optional[str]
    lock_lost: bool = False
    """Safe mode: the broker lock was known lost, so nothing was committed or unlocked."""
    gave_up: bool = False
    """Safe mode: deferred for ``release_give_up_ms`` and given up (a hung listener)."""


@dataclass(frozen=True)
class Deferred:
    """A release that waits for a later round; the queue stays held, dropped."""

    queue: MessageQueue
    generation: int
    reason: DeferReason
    detail: Optional[str]
    waiting_ms: int = 0
    """How long this release has been waiting since it was first deferred."""


@dataclass(frozen=True)
class Acquired:
    queue: MessageQueue
    generation: int
    start_offset: int


@dataclass(frozen=True)
class Skipped:
    """A queue of the allocation not taken this round."""

    queue: MessageQueue
    reason: SkipReason
    detail: Optional[str]
    lock_leaked: bool


@dataclass(frozen=True)
class RoundWarning:
    kind: WarningKind
    detail: Optional[str]


@dataclass(frozen=True)
class RoundReport:
    """What one round (or drop_queue, or shutdown) did."""

    topic: str
    skipped_round: Optional[RoundSkippedReason]
    """Set when nothing changed because an input was missing or the strategy failed."""
    skipped_detail: Optional[str]
    changed: bool
    balanced: bool
    allocation: List[MessageQueue]
    released: List[Released] = field(default_factory=list)
    deferred: List[Deferred] = field(default_factory=list)
    acquired: List[Acquired] = field(default_factory=list)
    skipped: List[Skipped] = field(default_factory=list)
    warnings: List[RoundWarning] = field(default_factory=list)

    @classmethod
    def _from_native(cls, raw: Dict[str, Any]) -> "RoundReport":
        _only(raw, "topic", "skipped_round", "changed", "balanced", "allocation", "released", "deferred", "acquired", "skipped", "warnings")
        skipped_round, skipped_detail = _kind(raw["skipped_round"]) if raw["skipped_round"] is not None else (None, None)
        return cls(
            topic=raw["topic"],
            skipped_round=skipped_round,
            skipped_detail=skipped_detail,
            changed=raw["changed"],
            balanced=raw["balanced"],
            allocation=[_mq(q) for q in raw["allocation"]],
            released=[
                Released(_mq(r["queue"]), r["generation"], r["reason"], r["forced"], r["persist_failed"], r["lock_lost"], r["gave_up"])
                for r in (_only(r, "queue", "generation", "reason", "forced", "persist_failed", "lock_lost", "gave_up") for r in raw["released"])
            ],
            deferred=[
                Deferred(_mq(d["queue"]), d["generation"], *_kind(d["reason"]), d["waiting_ms"])
                for d in (_only(d, "queue", "generation", "reason", "waiting_ms") for d in raw["deferred"])
            ],
            acquired=[
                Acquired(_mq(a["queue"]), a["generation"], a["start_offset"])
                for a in (_only(a, "queue", "generation", "start_offset") for a in raw["acquired"])
            ],
            skipped=[
                Skipped(_mq(s["queue"]), *_kind(s["reason"]), s["lock_leaked"]) for s in (_only(s, "queue", "reason", "lock_leaked") for s in raw["skipped"])
            ],
            warnings=[RoundWarning(*_kind(w)) for w in raw["warnings"]],
        )


@dataclass(frozen=True)
class LockReport:
    """``lock_all``, ``lock_queue``, ``locks_lost``: locks renewed, and locks lost (the queue is
    no longer consumable; in safe mode the next round restarts it with a new generation)."""

    renewed: List[MessageQueue]
    lost: List[MessageQueue]
    warnings: List[RoundWarning]

    @classmethod
    def _from_native(cls, raw: Dict[str, Any]) -> "LockReport":
        _only(raw, "renewed", "lost", "warnings")
        return cls([_mq(q) for q in raw["renewed"]], [_mq(q) for q in raw["lost"]], [RoundWarning(*_kind(w)) for w in raw["warnings"]])


@dataclass(frozen=True)
class QueueState:
    generation: int
    dropped: bool
    locked: Optional[bool]
    """Orderly consumers only; None where the consumer does not lock queues."""
    last_lock_ms: int
    last_pull_ms: int
    try_unlock_times: int
    deferred_since_ms: Optional[int] = None
    """When a release of this state was first deferred (None: no release pending)."""


class Host(Protocol):
    """What the engine asks of the client around it. Raising an ``Exception`` from a method is
    that step's failure (a lock refused, an offset that cannot be read, ...): the engine leaves the
    queue in a defined state and the next round repairs it. KeyboardInterrupt and SystemExit stop
    the round and propagate.

    Two optional methods are looked up by name, so hosts written for earlier versions keep
    working: ``stop_pull(queue, generation)`` (a state was dropped: stop pulling it; default:
    nothing) and ``commit_offset(queue, offset)`` (set and commit the group's offset synchronously;
    without it, a queue started from ``consume_from`` is not committed and the round warns
    ``start_offset_not_committed``). The whole contract, with cadence and threads, is in
    docs/host-contract.md."""

    def lock(self, broker: str, queues: List[MessageQueue]) -> Iterable[MessageQueue]:
        """Lock ``queues`` (all on ``broker``) for this client; return those now locked."""
        ...

    def unlock(self, broker: str, queues: List[MessageQueue]) -> None: ...

    def read_offset(self, queue: MessageQueue, source: str) -> Optional[int]:
        """The committed offset, or None when there is none. ``source`` is "store" or
        "memory_then_store". Raise when the store cannot be asked: that is not "none"."""
        ...

    def persist_offset(self, queue: MessageQueue) -> None: ...

    def remove_offset(self, queue: MessageQueue) -> None: ...

    def max_offset(self, queue: MessageQueue) -> int: ...

    def search_offset(self, queue: MessageQueue, timestamp_ms: int) -> int: ...

    def try_consume_lock(self, queue: MessageQueue, generation: int, wait_ms: int) -> bool:
        """Take the queue's consume lock if no listener call runs on it (orderly release)."""
        ...

    def release_consume_lock(self, queue: MessageQueue, generation: int) -> None: ...

    def dispatch_pull(self, queue: MessageQueue, offset: int, delay_ms: int, generation: int) -> None: ...

    def queue_set_changed(self, topic: str, all_queues: List[MessageQueue], divided: List[MessageQueue]) -> None: ...

    def schedule_rebalance(self, delay_ms: int) -> None: ...


class Rebalancer:
    """One client's rebalancing state (RocketMQ's RebalanceImpl), driven through a Host.

    ``semantics="safe"`` (default) fixes the places where the Java client breaks its own
    invariants; ``"java"`` reproduces the RocketMQ 5.3.2/5.3.3 push consumer. Thread-safe: rounds
    are serialised; ``is_consumable``, ``record_pull`` and ``generation`` never wait for a running
    round (ask them from consume threads, under your consume lock). Calling any other method from
    inside one of this rebalancer's own host callbacks raises ``ReentrantError``; after
    ``shutdown`` every method but ``shutdown`` (and ``lock_all`` in safe mode) raises
    ``ShutDownError``.
    """

    def __init__(
        self,
        group: str,
        client_id: str,
        strategy: Strategy,
        *,
        model: str = "clustering",
        consume_type: str = "push",
        orderly: bool = False,
        consume_from: str = "last_offset",
        consume_timestamp_ms: int = 0,
        semantics: str = "safe",
        timing: Optional[Mapping[str, int]] = None,
    ) -> None:
        config: Dict[str, Any] = {
            "group": group,
            "client_id": client_id,
            "model": model,
            "consume_type": consume_type,
            "orderly": orderly,
            "consume_from": consume_from,
            "consume_timestamp_ms": consume_timestamp_ms,
            "semantics": semantics,
        }
        if timing is not None:
            config["timing"] = dict(timing)
        self._native = _native.Rebalancer(config, strategy)

    def subscribe(self, topic: str) -> None:
        self._native.subscribe(topic)

    def unsubscribe(self, topic: str) -> None:
        self._native.unsubscribe(topic)

    def subscriptions(self) -> List[str]:
        return self._native.subscriptions()

    def rebalance_topic(
        self,
        topic: str,
        queues: Optional[Sequence[MessageQueue]],
        client_ids: Optional[Sequence[str]],
        now_ms: int,
        host: Host,
    ) -> RoundReport:
        """One round for one topic. ``queues=None``: route unknown; ``client_ids=None``: the
        group's id list could not be fetched."""
        return RoundReport._from_native(self._native.rebalance_topic(topic, queues, client_ids, now_ms, host))

    def rebalance_all(
        self,
        views: Mapping[str, Tuple[Optional[Sequence[MessageQueue]], Optional[Sequence[str]]]],
        now_ms: int,
        host: Host,
    ) -> List[RoundReport]:
        """A round for every subscribed topic ({topic: (queues, client_ids)}), then the clean-up of
        topics no longer subscribed. A strategy that balances across topics (BALANCED_STICKY) is
        asked once for all topics that share a client-id list."""
        return [RoundReport._from_native(r) for r in self._native.rebalance_all(dict(views), now_ms, host)]

    def lock_all(self, now_ms: int, host: Host) -> LockReport:
        """Renew every held orderly lock (every 20 s)."""
        return LockReport._from_native(self._native.lock_all(now_ms, host))

    def lock_queue(self, queue: MessageQueue, now_ms: int, host: Host) -> LockReport:
        """``lockOneMQ``: lock one held queue found unlocked or expired. Java mode resumes the old
        state; safe mode only renews a lock that is still this client's."""
        return LockReport._from_native(self._native.lock_queue(queue, now_ms, host))

    def locks_lost(self, broker: str, now_ms: int, host: Host) -> LockReport:
        """Tell the engine that ``broker`` restarted (its lock table is empty): safe mode stops
        consuming that broker's orderly queues until each is re-locked with a new generation."""
        return LockReport._from_native(self._native.locks_lost(broker, now_ms, host))

    def start_offset(self, queue: MessageQueue, host: Host) -> Tuple[int, bool]:
        """``computePullFromWhere`` for a pull task that computes its own start (Java mode lite
        pull): (offset, whether consume_from chose it). Raises CallbackError when a callback
        fails."""
        return self._native.start_offset(queue, host)

    def drop_queue(self, queue: MessageQueue, now_ms: int, host: Host) -> RoundReport:
        return RoundReport._from_native(self._native.drop_queue(queue, now_ms, host))

    def shutdown(self, host: Host, now_ms: Optional[int] = None) -> RoundReport:
        """Release everything. Safe mode leaves an orderly queue whose listener call still runs
        (or whose commit or unlock fails) locked and reports it in ``deferred``: keep calling
        ``lock_all`` while those calls run, then ``shutdown`` again (with ``now_ms``) to finish."""
        return RoundReport._from_native(self._native.shutdown(host, now_ms))

    def is_shut_down(self) -> bool:
        return self._native.is_shut_down()

    def is_consumable(self, queue: MessageQueue, generation: int, now_ms: int) -> bool:
        """May the consume service consume this state now? Never waits for a running round."""
        return self._native.is_consumable(queue, generation, now_ms)

    def record_pull(self, queue: MessageQueue, generation: int, now_ms: int) -> bool:
        """Record a pull (keeps a push queue from expiring); False for a stale generation."""
        return self._native.record_pull(queue, generation, now_ms)

    def generation(self, queue: MessageQueue) -> Optional[int]:
        """The generation of the state held for ``queue``, if any. Never waits."""
        return self._native.generation(queue)

    def held(self) -> List[Tuple[MessageQueue, QueueState]]:
        return [(q, QueueState(**s)) for q, s in self._native.held()]
