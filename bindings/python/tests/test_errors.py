"""Bad input gets a clear, typed error: never a bare Exception, never a crash."""

import pathlib
from typing import Any, List

import pytest

import rocketmq_rebalance as rr
from rocketmq_rebalance import _native

MQS = [rr.MessageQueue("T", "hz-b", i) for i in range(4)]


def test_java_argument_errors_are_value_errors_with_javas_message() -> None:
    with pytest.raises(rr.IllegalArgumentError, match="currentCID is empty") as e:
        rr.Averagely().allocate("g", None, MQS, ["c1"])
    assert isinstance(e.value, ValueError) and e.value.java_exception == "IllegalArgumentException"
    with pytest.raises(rr.IllegalArgumentError, match="mqAll is null or mqAll empty"):
        rr.Averagely().allocate("g", "c1", [], ["c1"])
    with pytest.raises(rr.IllegalArgumentError, match="cidAll is null or cidAll empty"):
        rr.AveragelyByCircle().allocate("g", "c1", MQS, None)
    with pytest.raises(rr.IllegalArgumentError, match="illegal virtualNodeCnt :-1"):
        rr.ConsistentHash(-1)
    assert rr.Averagely().allocate("g", "absent", MQS, ["c1"]) == []


def test_wrong_types_are_type_errors() -> None:
    s = rr.Averagely()
    bad: List[Any] = [
        lambda: s.allocate("g", "c1", ["not a queue"], ["c1"]),
        lambda: s.allocate("g", "c1", MQS, "c1"),
        lambda: s.allocate("g", "c1", MQS, [1, 2]),
        lambda: s.allocate("g", 5, MQS, ["c1"]),
        lambda: rr.MessageQueue("T", "b", "0"),
        lambda: rr.sort_like_java([1, 2]),
        lambda: rr.MachineRoomNearby(rr.Averagely()),
    ]
    for call in bad:
        with pytest.raises(TypeError):
            call()
    with pytest.raises(OverflowError):
        rr.MessageQueue("T", "b", 2**31)


def test_unknown_names_and_bad_parameters_say_what_is_wrong() -> None:
    with pytest.raises(rr.UnknownStrategyError, match="averagely \\(AVG\\)") as e:
        rr.strategy_from_config("avg")
    assert isinstance(e.value, ValueError)
    with pytest.raises(rr.InvalidParametersError, match="virtual_node_count"):
        rr.strategy_from_config("consistent_hash", virtual_node_count="ten")
    with pytest.raises(rr.InvalidParametersError, match="inner"):
        rr.strategy_from_config("machine_room_nearby")
    assert rr.strategy_from_config("CONSISTENT_HASH", virtual_node_count=3).name == "CONSISTENT_HASH"
    assert rr.strategy_from_config("by_config", config=[rr.MessageQueue("X", "y", 1)]).allocate(None, None, None, None) == [rr.MessageQueue("X", "y", 1)]


def test_java_nulls() -> None:
    assert rr.ByConfig().allocate("g", "c1", MQS, ["c1"]) is None
    with pytest.raises(rr.MissingConfigurationError):
        rr.ByMachineRoom().allocate("g", "c1", [rr.MessageQueue("T", "idc@b", 0)], ["c1"])
    with pytest.raises(rr.MissingConfigurationError):
        rr.MachineRoomNearby(rr.ByConfig(), rr.SeparatorResolver()).allocate("g", "hz@1", MQS, ["hz@1"])


class Resolver:
    def broker_room(self, mq: rr.MessageQueue) -> str:
        return mq.broker_name.split("-")[0]

    def consumer_room(self, cid: str) -> str:
        return cid.split("@")[0]


def test_python_resolvers_objects_and_callables() -> None:
    ids = ["hz@1", "sh@1"]
    by_object = rr.MachineRoomNearby(rr.Averagely(), Resolver())
    by_callables = rr.MachineRoomNearby(rr.Averagely(), broker_room=Resolver().broker_room, consumer_room=Resolver().consumer_room)
    native = rr.MachineRoomNearby(rr.Averagely(), rr.SeparatorResolver())
    assert by_object.name == "MACHINE_ROOM_NEARBY-AVG"
    for cid in ids:
        assert by_object.allocate("g", cid, MQS, ids) == by_callables.allocate("g", cid, MQS, ids) == native.allocate("g", cid, MQS, ids)


def test_a_resolver_that_raises_propagates_its_own_exception() -> None:
    class Broken(Resolver):
        def consumer_room(self, cid: str) -> str:
            raise LookupError("no such consumer")

    with pytest.raises(LookupError, match="no such consumer"):
        rr.MachineRoomNearby(rr.Averagely(), Broken()).allocate("g", "hz@1", MQS, ["hz@1"])

    class Interrupted(Resolver):
        def broker_room(self, mq: rr.MessageQueue) -> str:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        rr.MachineRoomNearby(rr.Averagely(), Interrupted()).allocate("g", "hz@1", MQS, ["hz@1"])

    class NoRoom(Resolver):
        def broker_room(self, mq: rr.MessageQueue) -> None:
            return None

    with pytest.raises(rr.IllegalArgumentError, match="Machine room is null for mq"):
        rr.MachineRoomNearby(rr.Averagely(), NoRoom()).allocate("g", "hz@1", MQS, ["hz@1"])

    class WrongType(Resolver):
        def broker_room(self, mq: rr.MessageQueue) -> int:
            return 5

    with pytest.raises(TypeError, match="must be str or None"):
        rr.MachineRoomNearby(rr.Averagely(), WrongType()).allocate("g", "hz@1", MQS, ["hz@1"])


def test_message_queue_is_a_value() -> None:
    import copy
    import pickle

    q = rr.MessageQueue("T", "b", 1)
    assert q == rr.MessageQueue("T", "b", 1) and hash(q) == hash(rr.MessageQueue("T", "b", 1))
    assert pickle.loads(pickle.dumps(q)) == q and copy.deepcopy(q) == q
    assert repr(q) == "MessageQueue(topic='T', broker_name='b', queue_id=1)"
    assert str(q) == "MessageQueue [topic=T, brokerName=b, queueId=1]"
    with pytest.raises(AttributeError):
        q.queue_id = 2  # type: ignore[misc]
    # Java order: U+FF21 sorts after an emoji (UTF-16), unlike Python's own str order.
    assert rr.MessageQueue("\uff21", "b", 0) > rr.MessageQueue("\U0001f600", "b", 0)


def test_consistent_hash_takes_the_packages_one_parameter_name() -> None:
    assert rr.ConsistentHash(virtual_node_count=3).virtual_node_count == 3
    assert rr.ConsistentHash(7).virtual_node_count == 7 and rr.ConsistentHash().virtual_node_count == 10
    with pytest.warns(DeprecationWarning, match="virtual_node_count"):
        old = rr.ConsistentHash(virtual_nodes=5)
    assert old.virtual_node_count == 5 and old.virtual_nodes == 5
    with pytest.raises(TypeError):
        rr.ConsistentHash(3, virtual_nodes=3)
    queues = rr.sort_like_java([rr.MessageQueue("T", "b", i) for i in range(8)])
    ids = ["a", "b", "c"]
    same = rr.strategy_from_config("consistent_hash", virtual_node_count=3)
    assert rr.ConsistentHash(virtual_node_count=3).allocate("g", "a", queues, ids) == same.allocate("g", "a", queues, ids)


def test_the_error_table_names_each_core_errors_python_class(root: pathlib.Path) -> None:
    rows = {}
    for line in (root / "docs" / "errors.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip().strip("`") for c in line.strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 5:
            rows[cells[0]] = cells[3]
    classes = _native.error_classes()
    assert {variant: rows.get(variant) for variant, _ in classes} == dict(classes)
    for _, name in classes:
        assert issubclass(getattr(rr, name), rr.RebalanceError), name
