import json
import pathlib
from typing import Any, Callable, Dict, List

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
VECTORS = ROOT / "tests" / "vectors" / "data"


def vector_lines(name: str) -> List[Dict[str, Any]]:
    with open(VECTORS / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def golden_failures(file: str, config_name: str, typed: Callable[[Dict[str, Any]], Any]) -> List[str]:
    """Runs every committed answer of tests/golden/FILE through the config form and `typed`; the
    cases that disagree, described."""
    import rocketmq_rebalance as rr

    with open(ROOT / "tests" / "golden" / file, encoding="utf-8") as f:
        cases = [json.loads(line) for line in f]
    assert len(cases) >= 400
    failures = []
    for case in cases:
        mq_all = None if case["mq_all"] is None else [rr.MessageQueue(t, b, i) for t, b, i in case["mq_all"]]
        for strategy in (rr.strategy_from_config(config_name, **case["params"]), typed(case["params"])):
            try:
                mine = strategy.allocate(case["group"], case["current"], mq_all, case["cid_all"])
                got = {"result": [[q.topic, q.broker_name, q.queue_id] for q in mine or []]}
            except rr.IllegalArgumentError as e:
                got = {"error": f"{e.java_exception}: {e}"}
            if got != case["expected"]:
                failures.append(f"{case['id']} ({strategy.name}): want {case['expected']}, got {got}")
    return failures


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT
