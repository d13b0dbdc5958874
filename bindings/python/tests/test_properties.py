"""Invariants of the strategies on Java-sorted input with distinct ids (Hypothesis, derandomized:
the same examples every run)."""

from typing import List, Tuple

from hypothesis import given, settings
from hypothesis import strategies as st

import rocketmq_rebalance as rr

NAMES = ["a", "b", "hz", "\uff21", "\U0001f600", "\ue000x", "\u00e9"]

group_input = st.tuples(
    st.sets(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES), st.integers(0, 40)), min_size=1, max_size=120),
    st.sets(st.tuples(st.sampled_from(NAMES), st.integers(0, 9999)), min_size=1, max_size=25),
).map(
    lambda t: (
        rr.sort_like_java([rr.MessageQueue(f"T{a}", f"{b}-broker", i) for a, b, i in t[0]]),
        rr.sort_like_java([f"{room}@{n}" for room, n in t[1]]),
    )
)

PARTITIONING = [rr.Averagely(), rr.AveragelyByCircle(), rr.ConsistentHash(), rr.ConsistentHash(3), rr.MachineRoomNearby(rr.Averagely(), rr.SeparatorResolver())]


@settings(derandomize=True, max_examples=60, deadline=None)
@given(group_input)
def test_group_view_is_a_partition_and_matches_each_member(data: Tuple[List[rr.MessageQueue], List[str]]) -> None:
    mqs, ids = data
    for s in PARTITIONING:
        view = s.allocate_group("g", mqs, ids)
        assert rr.verify(mqs, ids, view).is_partition, s.name
        for cid in ids:
            assert s.allocate("g", cid, mqs, ids) == view[cid], (s.name, cid)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(group_input)
def test_deterministic_across_calls_and_instances(data: Tuple[List[rr.MessageQueue], List[str]]) -> None:
    mqs, ids = data
    for make in (rr.Averagely, rr.AveragelyByCircle, rr.ConsistentHash):
        assert make().allocate_group("g", mqs, ids) == make().allocate_group("g", list(mqs), list(ids))


@settings(derandomize=True, max_examples=60, deadline=None)
@given(group_input)
def test_averagely_and_circle_balance_within_one(data: Tuple[List[rr.MessageQueue], List[str]]) -> None:
    mqs, ids = data
    for s in (rr.Averagely(), rr.AveragelyByCircle()):
        loads = [len(v) for v in s.allocate_group("g", mqs, ids).values()]
        assert max(loads) - min(loads) <= 1, (s.name, loads)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="a\ue000\uff21\U0001f600\U0001f601\u00e9", max_size=5), max_size=12))
def test_string_order_is_utf16_code_units(ids: List[str]) -> None:
    assert rr.sort_like_java(ids) == sorted(ids, key=lambda s: s.encode("utf-16-be"))


@settings(derandomize=True, max_examples=100, deadline=None)
@given(group_input)
def test_movement_counts_changed_owners(data: Tuple[List[rr.MessageQueue], List[str]]) -> None:
    mqs, ids = data
    before = rr.Averagely().allocate_group("g", mqs, ids)
    after = rr.Averagely().allocate_group("g", mqs, rr.sort_like_java(ids + ["zz-newcomer"]))
    owner_before = {q: c for c, qs in before.items() for q in qs}
    owner_after = {q: c for c, qs in after.items() for q in qs}
    m = rr.movement(before, after)
    assert m.moved == sum(1 for q in owner_before if q in owner_after and owner_before[q] != owner_after[q])
