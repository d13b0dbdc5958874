"""Every committed conformance vector (answered by the real rocketmq-client jar) through the
Python API: per member, and through the group view."""

from typing import Any, Dict, List, Optional

import pytest

import rocketmq_rebalance as rr
from conftest import vector_lines

STRATEGIES = ["averagely", "circle", "consistent_hash", "machine_room_nearby", "by_machine_room", "by_config"]
# Java's exception class -> ours. A NullPointerException's message is the JVM's own wording.
EXCEPTIONS = {"IllegalArgumentException": rr.IllegalArgumentError, "NullPointerException": rr.MissingConfigurationError}


def queues(raw: Optional[List[Any]]) -> Optional[List[rr.MessageQueue]]:
    return None if raw is None else [rr.MessageQueue(t, b, i) for t, b, i in raw]


def run_case(case: Dict[str, Any]) -> Dict[str, Any]:
    try:
        strategy = rr.strategy_from_config(case["strategy"], **case["params"])
        result = strategy.allocate(case["group"], case["current"], queues(case["mq_all"]), case["cid_all"])
    except rr.RebalanceError as e:
        return {"error": (type(e), e.java_exception, str(e))}
    return {"result": None if result is None else [[q.topic, q.broker_name, q.queue_id] for q in result]}


@pytest.mark.parametrize("name", STRATEGIES)
def test_every_vector_matches_java(name: str) -> None:
    failures = []
    cases = vector_lines(f"{name}.jsonl")
    assert cases
    for case in cases:
        got = run_case(case)
        want = case["expected"]
        if "result" in want:
            ok = got == {"result": want["result"]}
        else:
            java_class, _, message = want["error"].partition(": ")
            ok = "error" in got and issubclass(got["error"][0], EXCEPTIONS[java_class]) and got["error"][1] == java_class
            ok = ok and (java_class == "NullPointerException" or got["error"][2] == message)
        if not ok:
            failures.append(f"{case['id']}: want {want}, got {got}")
        if ok and "result" in got and got["result"] is not None and case["current"] in (case["cid_all"] or []):
            strategy = rr.strategy_from_config(case["strategy"], **case["params"])
            view = rr.allocate_group(strategy, case["group"], queues(case["mq_all"]) or [], case["cid_all"])
            share = [[q.topic, q.broker_name, q.queue_id] for q in view[case["current"]]]
            if share != got["result"]:
                failures.append(f"{case['id']}: group view {share} != {got['result']}")
    assert not failures, "\n".join(failures[:10])


def test_results_are_the_callers_own_objects() -> None:
    mqs = [rr.MessageQueue("T", "b", i) for i in range(6)]
    mine = rr.Averagely().allocate("g", "c1", mqs, ["c1", "c2"])
    assert mine is not None and all(any(q is m for m in mqs) for q in mine)


def test_sorting_matches_collections_sort() -> None:
    for case in vector_lines("sort.jsonl"):
        got_q = rr.sort_like_java(queues(case["mq_all"]) or [])
        assert [[q.topic, q.broker_name, q.queue_id] for q in got_q] == case["expected"]["mq_all"], case["id"]
        assert rr.sort_like_java(case["cid_all"]) == case["expected"]["cid_all"], case["id"]
