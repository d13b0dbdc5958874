"""BALANCED_STICKY from Python: the core's committed answers (tests/golden, the reference for a
strategy with no Java original), the typed class against the config form, and properties checked
here on seeded random groups."""

import random
from typing import Any, Dict

import pytest

import rocketmq_rebalance as rr
from conftest import golden_failures


def typed(params: Dict[str, Any]) -> rr.Strategy:
    key = params.get("stable_key", "client_id")
    weights = params.get("weights")
    if isinstance(key, dict):
        return rr.BalancedSticky("before", separator=key["before"], weights=weights)
    return rr.BalancedSticky(key, weights=weights)


def test_every_committed_answer_by_config_and_by_class() -> None:
    failures = golden_failures("balanced_sticky.jsonl", "balanced_sticky", typed)
    assert not failures, "\n".join(failures[:10])


def test_random_groups_are_balanced_once_and_order_free() -> None:
    seed = random.randrange(2**32)
    print(f"seed {seed}")
    rng = random.Random(seed)
    for case in range(300):
        topics = [f"T{t}" for t in range(rng.randint(1, 4))]
        queues = [rr.MessageQueue(t, "b", q) for t in topics for q in range(rng.randint(1, 10))]
        ids = [f"10.0.0.{m}@{100 + m}" for m in range(rng.randint(1, 9))]
        strategy = rr.BalancedSticky(rng.choice(["client_id", "host"]))
        view = rr.allocate_group(strategy, "g", queues, ids)
        owners = [q for m in ids for q in view[m]]
        assert sorted(owners) == sorted(queues), f"seed {seed} case {case}: not exactly once"
        totals = [len(view[m]) for m in ids]
        assert max(totals) - min(totals) <= 1, f"seed {seed} case {case}: totals {totals}"
        for t in topics:
            per = [sum(q.topic == t for q in view[m]) for m in ids]
            assert max(per) - min(per) <= 1, f"seed {seed} case {case}: topic {t} {per}"
        shuffled_q, shuffled_i = queues[:], ids[:]
        rng.shuffle(shuffled_q)
        rng.shuffle(shuffled_i)
        me = rng.choice(ids)
        assert set(strategy.allocate("g", me, shuffled_q, shuffled_i) or []) == set(view[me])


def test_weights_names_and_errors() -> None:
    weighted = rr.BalancedSticky("host", weights={"10.0.0.1": 3})
    assert weighted.name.startswith("BALANCED_STICKY-host-weights:")
    assert weighted.name == rr.strategy_from_config("balanced_sticky", stable_key="host", weights={"10.0.0.1": 3, "10.0.0.2": 1}).name
    assert rr.BalancedSticky("before", separator="#").name == "BALANCED_STICKY-before:#"
    queues = [rr.MessageQueue("T", "b", i) for i in range(8)]
    ids = ["10.0.0.2@7", "10.0.0.1@5"]
    # Weights 3 and 1 over 8 queues: exactly 6 and 2.
    assert len(weighted.allocate("g", "10.0.0.1@5", queues, ids) or []) == 6
    assert len(weighted.allocate("g", "10.0.0.2@7", queues, ids) or []) == 2
    for bad in [dict(weights={"x": 0}), dict(weights={"x": -1}), dict(weights={"x": 2**32}), dict(stable_key="nope"), dict(stable_key="before")]:
        with pytest.raises(rr.InvalidParametersError):
            rr.BalancedSticky(**bad)
    with pytest.raises(TypeError):
        rr.BalancedSticky(weights={1: 2})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        rr.BalancedSticky(weights={"x": "2"})  # type: ignore[dict-item]


def test_total_slack_is_named_equal_to_the_configured_form_and_checked() -> None:
    slack = rr.BalancedSticky("host", total_slack=2)
    assert slack.name == "BALANCED_STICKY-host-slack:2"
    assert slack.name == rr.strategy_from_config("balanced_sticky", stable_key="host", total_slack=2).name
    assert rr.BalancedSticky(total_slack=0).name == "BALANCED_STICKY"
    # 20 one-queue topics over 6 members: every topic exact (one holder), totals within the slack
    # of 20 / 6 (3 or 4), so between 1 and 6.
    queues = [rr.MessageQueue(f"T{t}", "b", 0) for t in range(20)]
    ids = [f"10.0.0.{i}@{100 + i}" for i in range(6)]
    view = {m: slack.allocate("g", m, queues, ids) or [] for m in ids}
    assert sorted(q for held in view.values() for q in held) == sorted(queues)
    assert all(1 <= len(held) <= 6 for held in view.values()), {m: len(h) for m, h in view.items()}
    for bad in [-1, 1001]:
        with pytest.raises(rr.InvalidParametersError):
            rr.BalancedSticky(total_slack=bad)
