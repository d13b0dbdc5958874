#!/usr/bin/env python3
"""A rolling restart of an orderly group, the engine and the stock consumer side by side, and the
handoff time users feel at every deployment.

Driven by scripts/bench/handoff.sh (a benchmark: its figures are printed, not asserted, but the
safety counts are). One cluster process (ClusterMain), two runs on it, each with its own 8-queue
topic, group and producer (keyed messages, 40 a second, so every queue always has a backlog
building) and the consumer processes of tests/e2e/drivers/orderly.py:

  engine  SafeOrderlyConsumer (safe semantics)
  stock   DefaultMQPushConsumer + MessageListenerOrderly

The same timeline for both, paced by what the processes write: c1..c4 join and consume; then each
is replaced, one at a time, as a deployment does it: its replacement n<i> starts and consumes,
then c<i> shuts down gracefully (SIGTERM: shutdown()); then the producer stops and everything
sent must be consumed.

Handoff time: each time a queue's calls pass from one process to another during the restart, the
seconds between the old owner's last call's end and the new owner's first call's begin; p50, p99
and max per side. The engine's overlaps, lost, order violations and offset regressions must be 0.
"""

import argparse
import time

from checkers.calls import handoff_gaps, percentile, read_calls
from drivers.orderly import Run, side_by_side
from fixtures.harness import wait_for

OLD = ("c1", "c2", "c3", "c4")
SETTLE_TIMEOUT = 240


class Rolling(Run):
    def timeline(self):
        producer_stop = self.start_producer()
        for c in OLD:
            self.start_consumer(c)
        took = wait_for("c1..c4 to consume", lambda: all(self.ended_calls(c) for c in OLD), 180, self.procs)
        self.log(f"c1..c4 consuming after {took:.0f} s")
        self.roll_began = time.monotonic_ns()
        for i, old in enumerate(OLD, 1):
            new = f"n{i}"
            self.start_consumer(new)
            took = wait_for(f"{new} to consume", lambda new=new: bool(self.ended_calls(new)), 180, self.procs)
            code = self.procs.terminate(old, 120)
            self.log(f"{new} consuming after {took:.0f} s; {old} shut down (exit {code})")
        self.roll_ended = time.monotonic_ns()
        producer_stop.write_text("stop")
        self.procs.terminate("producer", 60)
        sent = self.sent()
        took = wait_for("every message to be consumed", lambda: sent <= self.consumed(), SETTLE_TIMEOUT, self.procs)
        self.log(f"producer stopped after {len(sent)} messages; everything consumed {took:.0f} s later")

    def handoffs(self, end_ns):
        """handoff_gaps of the owner changes during the restart (and up to 60 s after it)."""
        return handoff_gaps(read_calls(self.dir, end_ns), self.roll_began, self.roll_ended + 60_000_000_000)

    def __call__(self):
        self.roll_began = self.roll_ended = 0
        super().__call__()
        self.result["handoffs"] = self.handoffs(time.monotonic_ns()) if self.roll_ended else []


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--java-cp", required=True)
    p.add_argument("--state", required=True)
    args = p.parse_args()
    args.rmq_rebalance = None
    runs = [Rolling(args, "engine", "safe"), Rolling(args, "stock", "stock")]
    side_by_side(args, runs)
    print()
    print(
        "| rolling restart, 8 queues, 4 processes replaced one by one | handoffs | p50 | p99 | max | overlapping calls | lost | order violations | offset regressions |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r, label in ((runs[0], "SafeOrderlyConsumer (the engine, safe)"), (runs[1], "DefaultMQPushConsumer + MessageListenerOrderly")):
        x, h = r.result, r.result["handoffs"]
        print(
            f"| {label} | {len(h)} | {percentile(h, 50):.1f} s | {percentile(h, 99):.1f} s | {max(h, default=float('nan')):.1f} s | "
            f"{x['overlaps']} | {x['lost']} | {x['process_violations']} | {x['regressions']} |"
        )
    for r in runs:
        if r.error is not None:
            print(f"the {r.name} run did not finish its timeline: {r.error}")
    e = runs[0].result
    bad = {k: e[k] for k in ("overlaps", "lost", "process_violations", "regressions") if e[k]}
    if runs[0].error is not None or bad:
        # To stderr, which run_driver prints last: the reason survives a log cut to its tail.
        raise SystemExit(
            f"FAILED: the engine's run: {bad or 'no violation'}" + ("" if runs[0].error is None else f"; its timeline did not finish: {runs[0].error}")
        )


if __name__ == "__main__":
    main()
