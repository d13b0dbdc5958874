"""The wheel against straightforward pure-Python implementations of the same strategies, timed
side by side in one run (a benchmark, not a test). Prints a Markdown table.

    python bindings/python/bench/bench_strategies.py [--quick]

The pure-Python versions follow the Java classes line by line, as a Python client would carry
them today; consistent hash also has a careful version (its ring built once per id list and
kept, as the wheel keeps it), the honest baseline. The script first checks that all agree. Each
call repeats the same route, as rebalance rounds do every 20 s (the wheel remembers the digests
of the routes it saw; the pure-Python versions have nothing to remember them in).
"""

from __future__ import annotations

import bisect
import hashlib
import sys
import timeit
from functools import partial
from typing import Callable, Dict, List, Sequence, Tuple

import rocketmq_rebalance as rr

MQ = rr.MessageQueue


def py_averagely(group: str, current: str, mqs: Sequence[MQ], cids: Sequence[str]) -> List[MQ]:
    if current not in cids:
        return []
    index, n, m = cids.index(current), len(mqs), len(cids)
    mod = n % m
    average = 1 if n <= m else (n // m + 1 if mod > 0 and index < mod else n // m)
    start = index * average if mod > 0 and index < mod else index * average + mod
    return [mqs[start + i] for i in range(min(average, n - start))]


def py_circle(group: str, current: str, mqs: Sequence[MQ], cids: Sequence[str]) -> List[MQ]:
    if current not in cids:
        return []
    index = cids.index(current)
    return [mqs[i] for i in range(index, len(mqs)) if i % len(cids) == index]


def _md5_32(key: str) -> int:
    return int.from_bytes(hashlib.md5(key.encode("utf-8")).digest()[:4], "big")


def py_consistent_hash(group: str, current: str, mqs: Sequence[MQ], cids: Sequence[str], vnodes: int = 10) -> List[MQ]:
    if current not in cids:
        return []
    ring: Dict[int, str] = {}
    for cid in cids:
        existing = sum(1 for owner in ring.values() if owner == cid)
        for i in range(vnodes):
            ring[_md5_32(f"{cid}-{existing + i}")] = cid
    keys = sorted(ring)
    out = []
    for mq in mqs:
        at = bisect.bisect_left(keys, _md5_32(str(mq)))
        if ring[keys[at % len(keys)]] == current:
            out.append(mq)
    return out


# The ring per id list, as a careful client keeps it between rounds (the id list rarely changes).
_RINGS: Dict[Tuple[Tuple[str, ...], int], Tuple[List[int], List[str]]] = {}


def py_consistent_hash_careful(group: str, current: str, mqs: Sequence[MQ], cids: Sequence[str], vnodes: int = 10) -> List[MQ]:
    """Consistent hash as a careful Python client writes it: the ring built once per id list
    (Java's overwrite rules, counts kept in a dict) and kept, hashlib MD5 and bisect per queue."""
    if current not in cids:
        return []
    ring = _RINGS.get((tuple(cids), vnodes))
    if ring is None:
        owner: Dict[int, str] = {}
        owned: Dict[str, int] = {}
        for cid in cids:
            existing = owned.get(cid, 0)
            for i in range(vnodes):
                point = _md5_32(f"{cid}-{existing + i}")
                previous = owner.get(point)
                if previous is not None:
                    owned[previous] -= 1
                owner[point] = cid
                owned[cid] = owned.get(cid, 0) + 1
        points = sorted(owner)
        ring = (points, [owner[p] for p in points])
        _RINGS.clear()
        _RINGS[(tuple(cids), vnodes)] = ring
    points, owners = ring
    if not points:
        return []
    md5, bisect_left, last = hashlib.md5, bisect.bisect_left, len(points)
    out = []
    for mq in mqs:
        at = bisect_left(points, int.from_bytes(md5(str(mq).encode("utf-8")).digest()[:4], "big"))
        if owners[at if at < last else 0] == current:
            out.append(mq)
    return out


def py_nearby(group: str, current: str, mqs: Sequence[MQ], cids: Sequence[str]) -> List[MQ]:
    if current not in cids:
        return []
    by_room: Dict[str, List[MQ]] = {}
    for mq in mqs:
        by_room.setdefault(mq.broker_name.split("-")[0], []).append(mq)
    consumers: Dict[str, List[str]] = {}
    for cid in cids:
        consumers.setdefault(cid.split("@")[0], []).append(cid)
    mine = current.split("@")[0]
    out = py_averagely(group, current, by_room.pop(mine), consumers[mine]) if mine in by_room else []
    for room in sorted(by_room, key=lambda r: r.encode("utf-16-be")):
        if room not in consumers:
            out += py_averagely(group, current, by_room[room], cids)
    return out


def py_by_machine_room(group: str, current: str, mqs: Sequence[MQ], cids: Sequence[str], idcs: frozenset = frozenset({"hz"})) -> List[MQ]:
    if current not in cids:
        return []
    index = cids.index(current)
    kept = [mq for mq in mqs if len(parts := [p for p in mq.broker_name.split("@")]) == 2 and parts[0] in idcs]
    q, r = divmod(len(kept), len(cids))
    out = kept[q * index : q * index + q]
    if index < r:
        out.append(kept[index + q * len(cids)])
    return out


def inputs(n: int, m: int, rooms_sep: str) -> Tuple[List[MQ], List[str]]:
    rooms = ["hz", "sh"]
    mqs = rr.sort_like_java([MQ("TopicA", f"{rooms[i % 2]}{rooms_sep}broker-{i % 8}", i // 8) for i in range(n)])
    cids = rr.sort_like_java([f"{rooms[i % 2]}@10.0.{i // 250}.{i % 250}@{4000 + i}" for i in range(m)])
    return mqs, cids


CASES: List[Tuple[str, Callable[..., List[MQ]], rr.Strategy, str]] = [
    ("AVG", py_averagely, rr.Averagely(), "-"),
    ("AVG_BY_CIRCLE", py_circle, rr.AveragelyByCircle(), "-"),
    ("CONSISTENT_HASH", py_consistent_hash, rr.ConsistentHash(), "-"),
    ("CONSISTENT_HASH, careful Python", py_consistent_hash_careful, rr.ConsistentHash(), "-"),
    ("MACHINE_ROOM_NEARBY-AVG", py_nearby, rr.MachineRoomNearby(rr.Averagely(), rr.SeparatorResolver()), "-"),
    ("MACHINE_ROOM", py_by_machine_room, rr.ByMachineRoom(["hz"]), "@"),
]


def best(f: Callable[[], object], budget_s: float) -> float:
    """Best per-call time over a few repeats, each sized to about budget_s / 5."""
    number = max(1, int(budget_s / 5 / max(1e-7, timeit.timeit(f, number=1))))
    return min(timeit.repeat(f, number=number, repeat=5)) / number


def main() -> None:
    quick = "--quick" in sys.argv
    sizes = [(16, 4), (1_000, 100)] + ([] if quick else [(100_000, 1_000)])
    print("| size (queues x ids) | strategy | pure Python | wheel | speed-up |")
    print("|---|---|---|---|---|")
    for n, m in sizes:
        for name, py_impl, strategy, sep in CASES:
            mqs, cids = inputs(n, m, sep)
            current = cids[m // 2]
            assert strategy.allocate("g", current, mqs, cids) == py_impl("g", current, mqs, cids), f"{name} disagrees at {n}x{m}"
            budget = 0.5 if n < 100_000 else 3.0
            # partial binds this iteration's values (a closure would read the loop variables late).
            t_py = best(partial(py_impl, "g", current, mqs, cids), budget)
            t_rs = best(partial(strategy.allocate, "g", current, mqs, cids), budget)
            print(f"| {n}x{m} | {name} | {t_py * 1e6:,.1f} us | {t_rs * 1e6:,.1f} us | {t_py / t_rs:,.1f}x |", flush=True)
        cold_route(n, m)


def cold_route(n: int, m: int) -> None:
    """Consistent hash when every call brings a route the wheel has not seen (same ids, so the
    ring is kept on both sides): calls cycle through more queue lists than the wheel remembers
    (64 lists, 262,144 queues in all)."""
    _, cids = inputs(n, m, "-")
    count = 3 if n >= 100_000 else 65
    routes = [rr.sort_like_java([MQ(f"Topic{k}", f"hz-broker-{i % 8}", i // 8) for i in range(n)]) for k in range(count)]
    strategy, current = rr.ConsistentHash(), cids[m // 2]
    turn = {"py": 0, "rs": 0}

    def call(side: str, f: Callable[..., List[MQ]]) -> List[MQ]:
        turn[side] += 1
        return f("g", current, routes[turn[side] % count], cids)

    assert call("py", py_consistent_hash_careful) == call("rs", strategy.allocate)
    budget = 0.5 if n < 100_000 else 3.0
    t_py = best(lambda: call("py", py_consistent_hash_careful), budget)
    t_rs = best(lambda: call("rs", strategy.allocate), budget)
    print(f"| {n}x{m} | CONSISTENT_HASH, careful Python, route new each call | {t_py * 1e6:,.1f} us | {t_rs * 1e6:,.1f} us | {t_py / t_rs:,.1f}x |", flush=True)


if __name__ == "__main__":
    main()
