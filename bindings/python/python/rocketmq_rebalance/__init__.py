"""RocketMQ consumer rebalancing, computed exactly as the Java client computes it.

Every consumer of a group sorts the same queue and client-id lists and runs the same strategy to
find its own share. This package gives Python clients the Java client's strategies bit for bit
(the same Rust core serves C, Java and the CLI), a whole-group view, and the rebalance engine.

    >>> from rocketmq_rebalance import Averagely, MessageQueue
    >>> queues = [MessageQueue("TopicA", "broker-a", i) for i in range(4)]
    >>> [q.queue_id for q in Averagely().allocate("group", "c1", queues, ["c1", "c2"])]
    [0, 1]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._engine import (
    Acquired,
    Deferred,
    DeferReason,
    Host,
    LockReport,
    QueueState,
    Rebalancer,
    Released,
    ReleaseReason,
    RoundReport,
    RoundSkippedReason,
    RoundWarning,
    Skipped,
    SkipReason,
    WarningKind,
)
from ._errors import (
    CallbackError,
    IllegalArgumentError,
    InputTooLargeError,
    InvalidParametersError,
    MissingConfigurationError,
    RebalanceError,
    ReentrantError,
    ShutDownError,
    UnknownStrategyError,
)
from ._native import (
    Averagely,
    AveragelyByCircle,
    BalancedSticky,
    BalancedStickyV2,
    ByConfig,
    ByMachineRoom,
    ConsistentHash,
    MachineRoomNearby,
    MessageQueue,
    SeparatorResolver,
    Strategy,
    sort_like_java,
)

__version__: str = _native.__version__


def _plain(value: Any) -> Any:
    """MessageQueues inside parameters become the ["topic", "broker", id] form of the config text."""
    if isinstance(value, MessageQueue):
        return [value.topic, value.broker_name, value.queue_id]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    return value


def strategy_from_config(name: str, **params: Any) -> Strategy:
    """A strategy from its config name (``averagely``, ``consistent_hash``, ...) or Java name
    (``AVG``, ``CONSISTENT_HASH``, ...) and parameters: the same config the CLI and the C API
    take, e.g. ``strategy_from_config("consistent_hash", virtual_node_count=20)``."""
    return _native.strategy_from_config(name, **_plain(params))


def allocate_group(strategy: Strategy, group: str, mq_all: Sequence[MessageQueue], cid_all: Sequence[str]) -> Dict[str, List[MessageQueue]]:
    """Every member's share at once: {client id: queues}, each exactly what that member computes."""
    return strategy.allocate_group(group, mq_all, cid_all)


@dataclass(frozen=True)
class Verification:
    """What ``verify`` found; all empty means the shares partition the queues."""

    orphaned: List[MessageQueue]
    double_owned: List[Tuple[MessageQueue, List[str]]]
    duplicate_client_ids: List[str]
    unknown: List[MessageQueue]

    @property
    def is_partition(self) -> bool:
        return not (self.orphaned or self.double_owned or self.duplicate_client_ids or self.unknown)


def verify(mq_all: Sequence[MessageQueue], cid_all: Sequence[str], ownership: Mapping[str, Iterable[MessageQueue]]) -> Verification:
    """Checks that ``ownership`` ({client id: queues}, from a group view or from each client's own
    answer) gives every queue exactly one owner, and reports duplicate client ids."""
    raw = _native.verify(mq_all, cid_all, {k: list(v) for k, v in ownership.items()})
    return Verification(raw["orphaned"], [(q, list(o)) for q, o in raw["double_owned"]], raw["duplicate_client_ids"], raw["unknown"])


@dataclass(frozen=True)
class Movement:
    moved: int
    """Queues present before and after whose owners changed."""
    common: int
    appeared: int
    disappeared: int


def movement(before: Mapping[str, Iterable[MessageQueue]], after: Mapping[str, Iterable[MessageQueue]]) -> Movement:
    """How many queues change owner from ``before`` to ``after`` (both {client id: queues})."""
    raw = _native.movement({k: list(v) for k, v in before.items()}, {k: list(v) for k, v in after.items()})
    return Movement(raw["moved"], raw["common"], raw["appeared"], raw["disappeared"])


@dataclass(frozen=True)
class Finding:
    """One thing ``diagnose`` found wrong; ``kind`` is one of the snake_case names of docs/inspect.md."""

    kind: str
    topic: Optional[str]
    """``None`` for a finding about the whole group."""
    queues: List[MessageQueue]
    clients: List[str]
    detail: str
    lag: Optional[int]
    """Messages waiting on the finding's queues, where the brokers said."""


@dataclass(frozen=True)
class ClientStrategy:
    """A member's strategy: ``source`` is ``"stated"`` (given or in its Java properties),
    ``"fingerprint"`` (the known strategy that reproduces what it holds), ``"foreign"`` (a class of
    its own named in its Java properties, ``strategy`` being that class) or ``"unknown"``."""

    client_id: str
    strategy: Optional[str]
    source: str
    also_matches: List[str]


@dataclass(frozen=True)
class QueueRow:
    queue: MessageQueue
    holders: List[str]
    handing_off: List[str]
    """Clients giving the queue up (a handoff in progress), not holders."""
    expected: List[str]
    """The members whose own strategy gives them the queue (empty when none is known)."""
    if_agreed: List[str]
    """Its holder if every member ran the strategy most of them run."""
    lag: Optional[int]


@dataclass(frozen=True)
class Diagnosis:
    """One group judged, read from core's one diagnosis schema (docs/inspect.md, "Output"): the
    same JSON ``rmq-rebalance inspect --json`` prints and C's ``rmq_diagnose`` writes."""

    group: str
    findings: List[Finding]
    queues: List[QueueRow]
    strategies: List[ClientStrategy]
    json: str = field(repr=False, compare=False)
    """The diagnosis as core wrote it, for tools that read ``inspect --json``."""

    @property
    def healthy(self) -> bool:
        return not self.findings

    @classmethod
    def from_json(cls, text: str) -> Diagnosis:
        """Reads a diagnosis strictly (``inspect --json``'s output, or ``json``): an unknown or
        missing field, another ``schema_version`` or a malformed queue raises
        ``InvalidParametersError``."""
        raw = _native.read_diagnosis(text)
        queue = _native.parse_queue
        return cls(
            raw["group"],
            [Finding(f["kind"], f["topic"], [queue(q) for q in f["queues"]], f["clients"], f["detail"], f["lag"]) for f in raw["findings"]],
            [QueueRow(queue(r["queue"]), r["holders"], r["handing_off"], r["expected"], r["if_agreed"], r["lag"]) for r in raw["queues"]],
            [ClientStrategy(c["client_id"], c["strategy"], c["source"], c.get("also_matches", [])) for c in raw["strategies"]],
            text,
        )


def diagnose(snapshot: Union[str, Mapping[str, Any]], strategies: Optional[Mapping[str, Union[Strategy, Mapping[str, Any]]]] = None) -> Diagnosis:
    """Judges a snapshot of a live consumer group, as ``rmq-rebalance inspect --save`` writes it (its
    JSON text, or the dict ``json.loads`` makes of it), without touching the cluster: queues nobody
    holds, queues held twice, holders their own strategy does not name, duplicate client ids,
    brokers that disagree on the members, clients that did not answer. ``strategies`` maps client
    ids or languages (``"GO"``, ``"JAVA"``) to the strategy those clients run: a ``Strategy``, or
    ``{"strategy": NAME, "params": {...}}`` (Go's own ``go_consistent_hash`` and
    ``go_by_machine_room`` too); the others are fingerprinted. A malformed snapshot raises
    ``InvalidParametersError`` (a ``ValueError``)."""
    text = _native.diagnose(snapshot if isinstance(snapshot, str) else dict(snapshot), None if strategies is None else dict(strategies))
    return Diagnosis.from_json(text)


__all__ = [
    "Acquired",
    "AveragelyByCircle",
    "Averagely",
    "BalancedSticky",
    "BalancedStickyV2",
    "ByConfig",
    "ClientStrategy",
    "ByMachineRoom",
    "CallbackError",
    "ConsistentHash",
    "DeferReason",
    "Deferred",
    "Diagnosis",
    "Finding",
    "Host",
    "IllegalArgumentError",
    "InputTooLargeError",
    "InvalidParametersError",
    "LockReport",
    "MachineRoomNearby",
    "MessageQueue",
    "MissingConfigurationError",
    "Movement",
    "QueueRow",
    "QueueState",
    "RebalanceError",
    "Rebalancer",
    "ReentrantError",
    "ReleaseReason",
    "Released",
    "RoundReport",
    "RoundSkippedReason",
    "RoundWarning",
    "SeparatorResolver",
    "ShutDownError",
    "SkipReason",
    "Skipped",
    "Strategy",
    "UnknownStrategyError",
    "WarningKind",
    "Verification",
    "allocate_group",
    "diagnose",
    "movement",
    "sort_like_java",
    "strategy_from_config",
    "verify",
]
