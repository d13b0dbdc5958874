"""BALANCED_STICKY_V2 from Python: the core's committed answers (tests/golden, pinned from its first
version), the typed class against the config form, and its caps checked here on seeded random
groups."""

import math
import random
from typing import Any, Dict

import pytest

import rocketmq_rebalance as rr
from conftest import golden_failures


def typed(params: Dict[str, Any]) -> rr.Strategy:
    key = params.get("stable_key", "client_id")
    caps = {k: params[k] for k in ("overload_percent", "underload_percent") if k in params}
    if isinstance(key, dict):
        return rr.BalancedStickyV2("before", separator=key["before"], **caps)
    return rr.BalancedStickyV2(key, **caps)


def test_every_committed_answer_by_config_and_by_class() -> None:
    failures = golden_failures("balanced_sticky_v2.jsonl", "balanced_sticky_v2", typed)
    assert not failures, "\n".join(failures[:10])


def test_random_groups_keep_the_caps_once_and_order_free() -> None:
    seed = random.randrange(2**32)
    print(f"seed {seed}")
    rng = random.Random(seed)
    for case in range(300):
        topics = [f"T{t}" for t in range(rng.randint(1, 5))]
        queues = [rr.MessageQueue(t, "b", q) for t in topics for q in range(rng.randint(1, 12))]
        ids = [f"10.0.0.{m}@{100 + m}" for m in range(rng.randint(1, 12))]
        overload, underload = rng.choice([(20, 40), (0, 0), (50, 100), (10, 20)])
        strategy = rr.BalancedStickyV2(rng.choice(["client_id", "host"]), overload_percent=overload, underload_percent=underload)
        view = rr.allocate_group(strategy, "g", queues, ids)
        owners = [q for m in ids for q in view[m]]
        where = f"seed {seed} case {case} ({strategy.name})"
        assert sorted(owners) == sorted(queues), f"{where}: not exactly once"
        q, c = len(queues), len(ids)
        totals = [len(view[m]) for m in ids]
        # The caps, from the rule's text: ceil(Q(100+o)/(100C)), floor(Q(100-u)/(100C)).
        assert max(totals) <= -(-q * (100 + overload) // (100 * c)), f"{where}: totals {totals}"
        assert min(totals) >= q * (100 - underload) // (100 * c), f"{where}: totals {totals}"
        assert not (min(totals) == 0 and max(totals) >= 2), f"{where}: totals {totals}"
        for t in topics:
            size = sum(x.topic == t for x in queues)
            per = [sum(x.topic == t for x in view[m]) for m in ids]
            assert max(per) <= math.ceil(size / c) + 1, f"{where}: topic {t} {per}"
        shuffled_q, shuffled_i = queues[:], ids[:]
        rng.shuffle(shuffled_q)
        rng.shuffle(shuffled_i)
        me = rng.choice(ids)
        assert set(strategy.allocate("g", me, shuffled_q, shuffled_i) or []) == set(view[me])


def test_names_defaults_and_errors() -> None:
    assert rr.BalancedStickyV2().name == "BALANCED_STICKY_V2"
    assert rr.BalancedStickyV2().name == rr.strategy_from_config("balanced_sticky_v2").name
    host = rr.BalancedStickyV2("host", overload_percent=30)
    assert host.name == "BALANCED_STICKY_V2-host-overload:30"
    assert host.name == rr.strategy_from_config("balanced_sticky_v2", stable_key="host", overload_percent=30).name
    assert rr.BalancedStickyV2("before", separator="#", underload_percent=100).name == "BALANCED_STICKY_V2-before:#-underload:100"
    for bad in [dict(overload_percent=-1), dict(overload_percent=401), dict(underload_percent=101), dict(stable_key="nope"), dict(stable_key="before")]:
        with pytest.raises(rr.InvalidParametersError):
            rr.BalancedStickyV2(**bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        rr.BalancedStickyV2(overload_percent="20")  # type: ignore[arg-type]
