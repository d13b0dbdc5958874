#!/usr/bin/env python3
"""How little can any stateless, exactly balanced strategy move? An exhaustive answer on small
universes (issue 15).

A strategy computed alone by every client is a function f from the set of members to an
assignment. Over a universe of U members and a fixed set of topics, this script finds, with an
integer program (PuLP + CBC), the function that moves the fewest queues in total over every join
and every leave between member sets of 2..U members, subject to BALANCED_STICKY's guarantees:
within each topic every member holds the floor or the ceiling of Q_t / C, and member totals are
the floor or ceiling of Q / C. It then measures that optimum the way `rmq-rebalance compare` does:
moved / bound, where the bound of a transition is the fewest moves from the old assignment to any
balanced assignment of the new set (found here by enumeration).

Since no stateless function moves fewer queues in total, `moved / sum of the largest bounds` is a
hard lower bound on the aggregate ratio any such function can reach on that universe; the ratio
of the optimum against its own bounds is printed too, with BALANCED_STICKY's own figures from the
CLI on the same transitions for comparison.

Then a bound by counting alone (`counting_bound`), for any number of members: a stateless
function moves the same queues on a join as on the leave that undoes it, and once members
outnumber queues only the leave has to move anything. It is checked here against the exhaustive
optimum of every universe it applies to (it is reached exactly with 4 members).

Last, the price of pairing (`pairing_optimum`): with one topic of K queues held one each by K of
U members, the fewest queues any function of the holders moves per swap of one holder for another
(at least the leaving holder's queue), against BALANCED_STICKY's on the same swaps.

    python3 scripts/docs/sticky_lower_bound.py [CLI]     (CLI default: target/release/rmq-rebalance)

PuLP and NumPy are installed into target/lower-bound-venv on first use. About five minutes, most
of it the universe of 6 members and the pairings of 3 and 4 queues among 6. Not listed because
they ran unsolved and were stopped: 6 members with topics of 1, 1 and 2 queues (14 minutes), 7
members with three one-queue topics (40 minutes: the best function found 1.55x, none below 1.48x
proven; the counting bound says 1.48x), and the pairing of 4 queues among 7 (5 minutes, best found
1.72 per swap).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import pathlib
import subprocess
import sys
import venv

ROOT = pathlib.Path(__file__).resolve().parent.parent
VENV = ROOT / "target" / "lower-bound-venv"


def ensure_packages() -> None:
    try:
        import numpy  # noqa: F401
        import pulp  # noqa: F401
    except ImportError:
        python = VENV / "bin" / "python"
        if not python.exists():
            venv.create(VENV, with_pip=True)
            subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", "pulp==3.3.2", "numpy==2.2.6"], check=True)
        os.execv(str(python), [str(python), *sys.argv])


ensure_packages()
import numpy as np  # noqa: E402
import pulp  # noqa: E402

# Universes: (members, topic sizes). Small enough to enumerate every balanced assignment, shaped
# like the groups issue 15 is about: topics with fewer queues than the group has members.
UNIVERSES = [
    (4, [1, 1, 1]),
    (4, [1, 1, 2]),
    (4, [1, 2, 3]),
    # Five one-queue topics over four members: where the counting bound is reached exactly.
    (4, [1, 1, 1, 1, 1]),
    (5, [1, 1, 1]),
    (5, [1, 1, 2]),
    (6, [1, 1, 1]),
]
# A universe whose optimum is not proven within this many seconds is reported as such.
TIME_LIMIT_S = 300


def queues_of(sizes: list[int]) -> list[tuple[int, int]]:
    return [(t, i) for t, size in enumerate(sizes) for i in range(size)]


def balanced(members: tuple[int, ...], sizes: list[int]) -> np.ndarray:
    """Every balanced assignment of the queues to `members` (rows: owner per queue)."""
    c, n = len(members), sum(sizes)
    per_topic = []
    for size in sizes:
        lo, hi = size // c, -(-size // c)
        per_topic.append([a for a in itertools.product(members, repeat=size) if all(lo <= a.count(m) <= hi for m in members)])
    lo, hi = n // c, -(-n // c)
    rows = []
    for combo in itertools.product(*per_topic):
        owners = [m for part in combo for m in part]
        if all(lo <= owners.count(m) <= hi for m in members):
            rows.append(owners)
    return np.array(rows, dtype=np.int8)


def bounds(old: np.ndarray, new_balanced: np.ndarray) -> np.ndarray:
    """For each old assignment, the fewest queues that change owner to reach a balanced one."""
    out = np.empty(len(old), dtype=np.int32)
    for start in range(0, len(old), 256):
        block = old[start : start + 256]
        out[start : start + 256] = (block[:, None, :] != new_balanced[None, :, :]).sum(axis=2).min(axis=1)
    return out


def both(prob, name: str, first, second):
    """A variable that is at most both binaries: 1 (at the optimum) where they agree on 1."""
    a = pulp.LpVariable(name, lowBound=0, upBound=1)
    prob += a <= first
    prob += a <= second
    return a


def solve_proven(prob, what: str) -> None:
    prob.solve(pulp.PULP_CBC_CMD(msg=False, timeLimit=TIME_LIMIT_S))
    # Stopped by the time limit, CBC still reports the status "Optimal" with the best solution
    # so far; only the solution status says whether it was proven.
    if prob.sol_status != pulp.LpSolutionOptimal:
        raise SystemExit(f"{what}: {pulp.LpSolution[prob.sol_status]}, not proven optimal within {TIME_LIMIT_S} s")


def solve(u: int, sizes: list[int]):
    n = sum(sizes)
    queues = queues_of(sizes)
    sets = [s for k in range(2, u + 1) for s in itertools.combinations(range(u), k)]
    all_balanced = {s: balanced(s, sizes) for s in sets}
    prob = pulp.LpProblem("stateless", pulp.LpMinimize)
    x = {(s, q, m): pulp.LpVariable(f"x_{'_'.join(map(str, s))}_{q}_{m}", cat="Binary") for s in sets for q in range(n) for m in s}
    for s in sets:
        c = len(s)
        for q in range(n):
            prob += pulp.lpSum(x[s, q, m] for m in s) == 1
        for m in s:
            for t, size in enumerate(sizes):
                held = pulp.lpSum(x[s, q, m] for q, (tq, _) in enumerate(queues) if tq == t)
                prob += held >= size // c
                prob += held <= -(-size // c)
            total = pulp.lpSum(x[s, q, m] for q in range(n))
            prob += total >= n // c
            prob += total <= -(-n // c)
    # Symmetry: renaming members, or a topic's queues among themselves, maps any function to one
    # that moves as many. When every balanced assignment of the whole universe is one renaming
    # of another (each member holds at most one queue, so they are the one-to-one maps), some
    # optimum gives queue q to member q there, and fixing that spares the solver the renamings.
    if n <= u:
        for q in range(n):
            prob += x[tuple(range(u)), q, q] == 1
    transitions = [(s, tuple(sorted(s + (m,)))) for s in sets if len(s) < u for m in range(u) if m not in s]
    agree_terms = [both(prob, f"a_{k}_{q}_{m}", x[small, q, m], x[big, q, m]) for k, (small, big) in enumerate(transitions) for q in range(n) for m in small]
    # Each transition happens both ways (a join and a leave), with the same number of moves.
    prob += len(transitions) * n - pulp.lpSum(agree_terms)
    solve_proven(prob, f"universe {u} x {sizes}")
    f = {s: np.array([next(m for m in s if x[s, q, m].value() > 0.5) for q in range(n)], dtype=np.int8) for s in sets}
    moved = sum(int((f[a] != f[b]).sum()) for a, b in transitions)
    join_own = sum(int(bounds(f[a][None, :], all_balanced[b])[0]) for a, b in transitions)
    leave_own = sum(int(bounds(f[b][None, :], all_balanced[a])[0]) for a, b in transitions)
    join_max = sum(int(bounds(all_balanced[a], all_balanced[b]).max()) for a, b in transitions)
    leave_max = sum(int(bounds(all_balanced[b], all_balanced[a]).max()) for a, b in transitions)
    return transitions, f, moved, join_own, leave_own, join_max, leave_max


def ours(cli: str, u: int, sizes: list[int], transitions):
    """BALANCED_STICKY's moves and bounds on the same transitions, through the CLI's batch form."""
    names = [f"10.0.0.{m}@{100 + m}#{7 * m + 3}" for m in range(u)]
    mq_all = [[f"T{t}", "broker-a", i] for t, size in enumerate(sizes) for i in range(size)]
    sets = sorted({s for pair in transitions for s in pair})
    cases = [
        json.dumps({"id": f"{i}-{m}", "strategy": "balanced_sticky", "group": "G", "current": names[m], "mq_all": mq_all, "cid_all": [names[k] for k in s]})
        for i, s in enumerate(sets)
        for m in s
    ]
    out = subprocess.run([cli, "allocate", "--cases", "-"], input="\n".join(cases) + "\n", capture_output=True, text=True, check=True).stdout
    owner = {s: np.zeros(len(mq_all), dtype=np.int8) for s in sets}
    for line in out.splitlines():
        answer = json.loads(line)
        i, m = map(int, answer["id"].split("-"))
        for q in answer["result"]:
            owner[sets[i]][mq_all.index(q)] = m
    balanced_of = {s: balanced(s, sizes) for s in sets}
    moved = sum(int((owner[a] != owner[b]).sum()) for a, b in transitions)
    join = sum(int(bounds(owner[a][None, :], balanced_of[b])[0]) for a, b in transitions)
    leave = sum(int(bounds(owner[b][None, :], balanced_of[a])[0]) for a, b in transitions)
    return moved, join, leave


def counting_bound(u: int, k: int) -> float:
    """A lower bound, by counting, on the ratio any stateless exactly balanced function reaches
    over the transitions of a universe of `u` members with one topic of `k` queues (or `k`
    one-queue topics: the bounds are the same), measured as `compare` does.

    A stateless function moves the same queues on the join s -> s+x as on the leave s+x -> s, so
    each transition counts its moves twice, once against the join's minimum and once against the
    leave's. The leave of x must move everything x holds: summed over the members of a set S,
    all k queues, for every S of 3 or more members. The join's minimum is zero once the group
    has at least k members (each holds at most one queue, the newcomer may stay idle); below
    that, it is what the counts force, at most the value computed here. Hence
        ratio = 2 moved / (joins' minima + leaves' minima) >= 2 L / (J + L),
    with L the leaves' forced moves and J the joins' largest minima; it tends to 2 as u grows.
    """
    leave = k * sum(math.comb(u, size) for size in range(3, u + 1))
    join = 0
    for c in range(2, min(k, u)):
        # The counts before (the newcomer last, at zero) and after, larger after to larger before.
        before = sorted([k // c + (i < k % c) for i in range(c)] + [0], reverse=True)
        after = [k // (c + 1) + (i < k % (c + 1)) for i in range(c + 1)]
        join += math.comb(u, c) * (u - c) * sum(max(0, b - a) for b, a in zip(before, after))
    return 2 * leave / (join + leave)


# Pairing universes: (queues K of one topic, members U). Every group of exactly K members holds
# one queue each, so only which member holds which queue is left to choose.
PAIRINGS = [(2, 5), (3, 5), (3, 6), (4, 6)]


def swaps(k: int, u: int):
    """Every holder set of k of u members, and every swap of one holder for an outsider (once)."""
    sets = list(itertools.combinations(range(u), k))
    pairs = []
    for s in sets:
        for y in s:
            for x in range(u):
                t = tuple(sorted(set(s) - {y} | {x}))
                if x not in s and s < t:
                    pairs.append((s, t))
    return sets, pairs


def pairing_optimum(k: int, u: int) -> tuple[int, int]:
    """The fewest queues any function of the holder set moves over every swap (k queues, each
    held by one of k holders out of u members): (swaps, moves), proven optimal.

    A swap must move the leaving holder's queue; whatever else changes owner is the pairing's
    price, and a function of the holders alone cannot avoid it: a member keeping the same queue
    in every set it belongs to would clash with another member of the same queue.
    """
    sets, pairs = swaps(k, u)
    prob = pulp.LpProblem("pairing", pulp.LpMinimize)
    y = {(s, m, q): pulp.LpVariable(f"y_{'_'.join(map(str, s))}_{m}_{q}", cat="Binary") for s in sets for m in s for q in range(k)}
    for s in sets:
        for m in s:
            prob += pulp.lpSum(y[s, m, q] for q in range(k)) == 1
        for q in range(k):
            prob += pulp.lpSum(y[s, m, q] for m in s) == 1
    # Renaming the queues maps any function to one that moves as many: fix the first set's.
    for q, m in enumerate(sets[0]):
        prob += y[sets[0], m, q] == 1
    kept = [both(prob, f"a_{e}_{m}_{q}", y[s, m, q], y[t, m, q]) for e, (s, t) in enumerate(pairs) for m in set(s) & set(t) for q in range(k)]
    prob += len(pairs) * k - pulp.lpSum(kept)
    solve_proven(prob, f"pairing {k} of {u}")
    return len(pairs), round(pulp.value(prob.objective))


def pairing_ours(cli: str, k: int, u: int) -> int:
    """BALANCED_STICKY's moves over the same swaps (one topic of k queues, groups of k members)."""
    names = [f"10.0.0.{m}@{100 + m}#{7 * m + 3}" for m in range(u)]
    mq_all = [["T0", "broker-a", i] for i in range(k)]
    sets, pairs = swaps(k, u)
    cases = [
        json.dumps({"id": f"{i}-{m}", "strategy": "balanced_sticky", "group": "G", "current": names[m], "mq_all": mq_all, "cid_all": [names[j] for j in s]})
        for i, s in enumerate(sets)
        for m in s
    ]
    out = subprocess.run([cli, "allocate", "--cases", "-"], input="\n".join(cases) + "\n", capture_output=True, text=True, check=True).stdout
    owner = {s: [None] * k for s in sets}
    for line in out.splitlines():
        answer = json.loads(line)
        i, m = map(int, answer["id"].split("-"))
        for q in answer["result"]:
            owner[sets[i]][q[2]] = m
    return sum(sum(a != b for a, b in zip(owner[s], owner[t])) for s, t in pairs)


def main() -> None:
    cli = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target" / "release" / "rmq-rebalance")
    print(
        "| members | topic sizes | transitions | best stateless: moved per direction | its join / leave bound | its ratio | hard lower bound on the ratio | BALANCED_STICKY moved | its ratio |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for u, sizes in UNIVERSES:
        transitions, _, moved, join_own, leave_own, join_max, leave_max = solve(u, sizes)
        ratio = 2 * moved / (join_own + leave_own) if join_own + leave_own else float("inf")
        hard = 2 * moved / (join_max + leave_max) if join_max + leave_max else float("inf")
        our_moved, our_join, our_leave = ours(cli, u, sizes, transitions)
        our_ratio = 2 * our_moved / (our_join + our_leave) if our_join + our_leave else float("inf")
        print(
            f"| {u} | {sizes} | {len(transitions)} | {moved} | {join_own} / {leave_own} | {ratio:.2f}x | {hard:.2f}x | {our_moved} | {our_ratio:.2f}x |",
            flush=True,
        )
        if set(sizes) == {1} or len(sizes) == 1:
            # The counting bound holds for every function, so for the best one found here too.
            bound = counting_bound(u, sum(sizes))
            assert ratio >= bound - 1e-9, f"the counting bound {bound:.3f} exceeds the search's optimum {ratio:.3f}"
    print()
    print("Counting bound (see `counting_bound`): no stateless exactly balanced function does better over")
    print("every join and leave among U members with one topic of K queues (or K one-queue topics):")
    print()
    sizes_u = [4, 5, 6, 7, 8, 10, 12, 16, 24]
    print("| K \\ U | " + " | ".join(map(str, sizes_u)) + " |")
    print("|---|" + "---:|" * len(sizes_u))
    for k in [1, 2, 3, 4, 6, 8, 16]:
        print(f"| {k} | " + " | ".join(f"{counting_bound(u, k):.2f}x" for u in sizes_u) + " |")
    print()
    print("Pairing (see `pairing_optimum`): queues moved per swap of one holder for another, when each of")
    print("K members holds one of a topic's K queues (1 is the leaving holder's queue alone):")
    print()
    print("| K | U | swaps | best function of the holders | BALANCED_STICKY |")
    print("|---:|---:|---:|---:|---:|")
    for k, u in PAIRINGS:
        n, best = pairing_optimum(k, u)
        mine = pairing_ours(cli, k, u)
        assert mine >= best, f"BALANCED_STICKY moves {mine} where the optimum is {best}"
        print(f"| {k} | {u} | {n} | {best / n:.2f} | {mine / n:.2f} |", flush=True)


if __name__ == "__main__":
    main()
