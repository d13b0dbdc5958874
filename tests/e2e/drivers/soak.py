#!/usr/bin/env python3
"""A kill -9 soak: orderly consumers killed inside listener calls again and again, replaced each time.

Driven by tests/e2e/run/soak.sh. A NameServer and a broker as two processes (the broker's monitor
writes its lock table, members and committed offsets), and two groups side by side, each with its
own 8-queue topic, producer and four consumer processes:

  engine  SafeOrderlyConsumer (safe semantics, broker watch)
  stock   DefaultMQPushConsumer + MessageListenerOrderly

Every 10-25 s (seeded; the seed is printed, RMQ_SEED replays it) one consumer of each group, the
same position in both, is cued into a 2 s listener call and killed (SIGKILL) inside it; 2-6 s
later a fresh process (a new name, so a new client id) joins in its place. After --seconds, the
producers stop and everything must be consumed. The checker and its columns are faults.py's
(calls judged against the broker's own lock table); the last line is the summary, and the
engine's without-lock, overlaps, lost, order violations, inversions and preventable regressions
must be 0.
"""

import argparse
import os
import random
import time

from fixtures import orderly_group as group
from fixtures.harness import wait_for

CONSUMERS = 4


def kill_inside_a_call(g, victim):
    """Cues victim's next listener call (on any queue) to take 2 s, kills it inside that call once
    it has begun (or after 60 s without one: between calls); returns whether it was inside."""
    started = g.dir / (victim + ".slow-started")
    started.unlink(missing_ok=True)
    (g.dir / (victim + ".slow")).write_text("* 2000")
    try:
        wait_for(f"{g.name}: a call of {victim}", started.exists, 60)
        inside = True
    except SystemExit:  # it holds no queue with messages just now
        inside = False
    (g.dir / (victim + ".slow")).unlink(missing_ok=True)
    g.procs.kill(victim)
    return inside


def timeline(groups, seconds, rng):
    live = {g.name: [f"c{i}" for i in range(1, CONSUMERS + 1)] for g in groups}
    for g in groups:
        g.start_producer()
        for c in live[g.name]:
            g.start_consumer(c)
    for g in groups:
        g.wait_consumed_since(0, live[g.name], "every consumer to consume")
        g.log("every consumer consuming")
    end = time.monotonic() + seconds
    kills = inside = 0
    next_name = CONSUMERS + 1
    while time.monotonic() < end:
        time.sleep(rng.uniform(10, 25))
        position = rng.randrange(CONSUMERS)
        pause = rng.uniform(2, 6)
        for g in groups:
            inside += kill_inside_a_call(g, live[g.name][position])
            live[g.name][position] = f"c{next_name}"
        kills += 1
        time.sleep(pause)
        for g in groups:
            g.start_consumer(f"c{next_name}")
        print(f"kill {kills}: position {position} killed in both groups, c{next_name} joined {pause:.1f} s later", flush=True)
        next_name += 1
    for g in groups:
        g.stop_producer()
    for g in groups:
        g.wait_all_consumed()
    return kills, inside


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--java-cp", required=True)
    p.add_argument("--state", required=True)
    p.add_argument("--seconds", type=int, default=180, help="how long the kills go on (default 180)")
    args = p.parse_args()
    seed = int(os.environ.get("RMQ_SEED", time.time_ns() // 1_000_000))
    print(f"soak seed {seed} (RMQ_SEED={seed} replays the choices)", flush=True)
    rng = random.Random(seed)
    groups = [group.OrderlyGroup(args, "SOAK", name, kind) for name, kind in (("engine", "safe"), ("stock", "stock"))]
    print(f"kills for {args.seconds} s", flush=True)
    done, error, end_ns = group.run_on_a_restartable_cluster(args, groups, lambda cluster: timeline(groups, args.seconds, rng))
    kills, inside = done or (0, 0)
    results = {g.name: g.figures(end_ns) for g in groups}
    title = f"orderly, 8 queues, 4 consumers: {kills} kill -9 in {args.seconds} s ({inside} of {2 * kills} inside a call), each replaced (seed {seed})"
    group.report("soak", title, groups, results, error=error)


if __name__ == "__main__":
    main()
