#!/usr/bin/env python3
"""Orderly consumption on a real NameServer and Broker, with processes leaving, dying and joining.

Driven by tests/e2e/run/orderly.sh. One cluster process (ClusterMain, which also watches each group's
committed offsets on the broker for moves backwards), and two runs side by side on it, each with
its own 8-queue topic, group, producer and 4 consumer processes (OrderlyConsumerMain):

  engine  SafeOrderlyConsumer: this project's engine (safe semantics) over the real client
  stock   DefaultMQPushConsumer + MessageListenerOrderly: Java's own RebalanceImpl

The same timeline for both, paced by what the processes write, not by the clock:
  1. c1, c2, c3 join (instance names c1..c3, so AVG gives c1 queues 0-2, c2 3-5, c3 6-7) and each
     consumes; a producer sends keyed messages (32 keys, increasing sequence per key) throughout.
  2. c2's next call on queue 4 takes 70 s; inside it, c4 joins, which moves queue 4 to c3 (AVG over
     four: c1 0-1, c2 2-3, c3 4-5, c4 6-7). Java keeps the dropped queue's lock only 20 s past its
     last renewal and then unlocks it under the running call.
  3. After that call, c1's next call on queue 0 takes 30 s, and c1 is killed (SIGKILL) inside it.
  4. c3 shuts down gracefully.
  5. The producer stops; a settle period until every message is consumed (or 240 s).

The checker (calls.py) reads every call each process logged (begin and end, CLOCK_MONOTONIC) and
the kill times the driver wrote to faults.log, and reports:
  overlaps            pairs of listener calls of two processes on the same queue at the same time
                      (a killed process's open call lasts until its kill); apart, pairs within one
  lost                messages sent but never consumed by a call that returned
  order violations    a key's message consumed by a process after a later one of the same key it
                      had already consumed (a replay from an offset behind its own)
  inversions          a message first consumed after a later one of its key, in any process
  backward replays    a message consumed again after a later one of its key (at-least-once)
  offset regressions  a committed offset moving backwards on the broker
The last line is the summary; the engine's overlaps, lost, order violations, inversions and
regressions must be 0 (the exit status says so).
"""

import argparse
import json
import subprocess
import threading
import time
from pathlib import Path

from checkers.calls import consumed, order_figures, overlaps, read_calls
from fixtures.harness import Cluster, Processes, java, wait_for

QUEUES = 8
KEYS = 32
RATE = 40  # messages per second
SLOW_JOIN_MS = 70_000  # Java force-unlocks 20-40 s after the drop (its next round past 20 s from the last renewal)
SLOW_KILL_MS = 30_000
SETTLE_TIMEOUT = 240


def instance(client_id):
    """The instance name in a Java client id, `ip@instance[@unit]` (SafeOrderlyConsumer's lite-pull
    client adds a unit, `@STREAM`)."""
    parts = client_id.split("@")
    return parts[1] if len(parts) > 1 else client_id


class Run:
    def __init__(self, args, name, kind):
        self.args, self.name, self.kind = args, name, kind
        self.topic, self.group = f"ORDERLY_{name.upper()}", f"GID_ORDERLY_{name.upper()}"
        self.dir = Path(args.state) / name
        self.procs = Processes(self.dir)
        self.result = None
        self.error = None

    def log(self, text):
        print(f"  [{self.name}] {text}", flush=True)

    def start_consumer(self, c):
        self.procs.spawn(
            c, java(self.args.java_cp, "OrderlyConsumerMain", self.args.namesrv, self.group, self.topic, self.kind, c, self.dir, log_root=self.dir / "logs")
        )

    def calls(self, c):
        f = self.dir / (c + ".calls")
        return f.read_text().splitlines() if f.exists() else []

    def ended_calls(self, c, queue=None):
        return [line for line in self.calls(c) if line.startswith("E ") and (queue is None or line.split()[1] == str(queue))]

    def slow(self, c, queue, ms):
        """Cues c's next call on queue to take ms; returns once that call has begun."""
        started = self.dir / (c + ".slow-started")
        started.unlink(missing_ok=True)
        (self.dir / (c + ".slow")).write_text(f"{queue} {ms}")
        wait_for(f"{c}'s slow call on queue {queue}", started.exists, 120, self.procs)
        return int(started.read_text())

    def start_producer(self):
        """Starts the keyed producer (KEYS keys, RATE a second); returns the file that stops it."""
        producer_stop = self.dir / "producer.stop"
        self.procs.spawn(
            "producer",
            java(
                self.args.java_cp,
                "OrderlyProducerMain",
                self.args.namesrv,
                self.topic,
                KEYS,
                RATE,
                self.dir / "sent",
                producer_stop,
                log_root=self.dir / "logs",
            ),
        )
        return producer_stop

    def timeline(self):
        producer_stop = self.start_producer()
        for c in ("c1", "c2", "c3"):
            self.start_consumer(c)
        took = wait_for("c1, c2 and c3 to consume", lambda: all(self.ended_calls(c) for c in ("c1", "c2", "c3")), 180, self.procs)
        self.log(f"c1, c2, c3 consuming after {took:.0f} s")

        begun = self.slow("c2", 4, SLOW_JOIN_MS)
        self.start_consumer("c4")
        self.log(f"c2 is in a {SLOW_JOIN_MS // 1000} s call on queue 4; c4 joined")
        if self.kind == "safe" and self.args.rmq_rebalance:
            self.log(self.inspect_mid_handoff())
        returned = lambda: any(int(line.split()[4]) <= begun <= int(line.split()[5]) for line in self.ended_calls("c2", 4))  # noqa: E731
        wait_for("c2's slow call to return", returned, SLOW_JOIN_MS / 1000 + 60, self.procs)
        self.log("c2's slow call returned")

        self.slow("c1", 0, SLOW_KILL_MS)
        self.procs.kill("c1")
        self.log(f"c1 killed (SIGKILL) inside a {SLOW_KILL_MS // 1000} s call on queue 0")
        code = self.procs.terminate("c3", 90)
        self.log(f"c3 shut down (exit {code})")

        producer_stop.write_text("stop")
        self.procs.terminate("producer", 60)
        sent = self.sent()
        self.log(f"producer stopped after {len(sent)} messages; settling")
        took = wait_for("every message to be consumed", lambda: sent <= self.consumed(), SETTLE_TIMEOUT, self.procs)
        self.log(f"everything consumed {took:.0f} s later")
        if self.kind == "safe" and self.args.rmq_rebalance:
            self.log(self.inspect_settled())

    def inspect(self):
        """One `inspect --group G --json` read: (exit code, the diagnosis or None, stderr). No
        --topic: inspect finds the group's topics in its subscriptions, as in the README."""
        cmd = [self.args.rmq_rebalance, "inspect", "--namesrv", self.args.namesrv, "--group", self.group, "--json"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        return done.returncode, None if done.returncode == 2 else json.loads(done.stdout), done.stderr

    def inspect_settled(self, timeout=120.0):
        """Once the group has settled, `inspect --group G` (no --topic, the README's form) must find
        it healthy: the group subscribed to its topic and its retry topic at the broker, as a push
        consumer is, and every queue of both held by the member that should hold it."""
        start, last = time.monotonic(), "no read yet"
        while time.monotonic() - start < timeout:
            code, out, err = self.inspect()
            if out is not None:
                topics = sorted({row["queue"].split("@")[0] for row in out["queues"]})
                if code == 0 and topics == sorted([self.topic, f"%RETRY%{self.group}"]):
                    return f"inspect --group {self.group}: healthy over {', '.join(topics)}"
                last = f"exit {code}, topics {topics}, findings {[f['kind'] for f in out['findings']]}"
            else:
                last = f"exit 2: {err.strip()[-300:]}"
            time.sleep(3)
        raise SystemExit(f"inspect never found the settled group healthy within {timeout:.0f} s: last read {last}")

    def inspect_mid_handoff(self, timeout=50.0):
        """While c2's slow call runs, `inspect` must show queue 4 given up by c2 and held by nobody
        else (the engine keeps c3 off it until the call returns): a handoff in progress, never
        double-held and never orphaned. Read until c4's join has reached every member (c3 names
        the queue as its own) or the window closes; any read that says otherwise fails."""
        queue = f"{self.topic}@broker-a:4"
        start, last = time.monotonic(), "no read yet"
        while time.monotonic() - start < timeout:
            _, out, _ = self.inspect()
            if out is not None:
                bad = [f for f in out["findings"] if f["kind"] in ("double_held", "orphaned") and queue in f["queues"]]
                if bad:
                    raise SystemExit(f"inspect misjudged the handoff of {queue}: {bad}")
                row = next(r for r in out["queues"] if r["queue"] == queue)
                giving_up = [c for c in row["handing_off"] if instance(c) == "c2"]
                if giving_up and not row["holders"] and any(instance(e) == "c3" for e in row["expected"]):
                    return f"inspect mid-handoff: {queue} given up by {giving_up[0]} inside its slow call, held by nobody else, expected {row['expected']}"
                last = f"holders {row['holders']}, giving up {row['handing_off']}, expected {row['expected']}"
            time.sleep(2)
        raise SystemExit(f"inspect never showed the handoff of {queue} within {timeout:.0f} s: last read {last}")

    def sent(self):
        return set((self.dir / "sent").read_text().split())

    def consumed(self):
        return consumed(read_calls(self.dir, time.monotonic_ns()))

    def check(self, end_ns):
        """The run's counts: overlaps (across and within processes), lost, order figures, offset regressions."""
        calls = read_calls(self.dir, end_ns)
        across, within, _ = overlaps(calls)
        out = {"overlaps": across, "same_process_overlaps": within, "lost": len(self.sent() - consumed(calls))}
        out.update(order_figures(calls))
        monitor = Path(self.args.state) / f"offsets-{self.group}.log"
        out["regressions"] = len(monitor.read_text().splitlines()) if monitor.exists() else 0
        return out

    def __call__(self):
        try:
            self.timeline()
        except BaseException as e:  # reported by main; the checker still runs on what was logged
            self.error = e
        finally:
            end_ns = time.monotonic_ns()
            self.procs.stop_all(timeout=90)
            self.result = self.check(end_ns)


def side_by_side(args, runs):
    """Runs each Run's timeline at once, on one cluster with each run's topic and group."""
    cluster = Cluster(args.java_cp, args.state, [(r.topic, QUEUES) for r in runs], [(r.group, r.topic) for r in runs])
    try:
        args.namesrv = cluster.namesrv
        print(f"NameServer + Broker 5.3.3 (own process) at {args.namesrv}; the engine and stock runs side by side", flush=True)
        threads = [threading.Thread(target=r) for r in runs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        cluster.stop()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--java-cp", required=True)
    p.add_argument("--state", required=True)
    p.add_argument("--rmq-rebalance", help="the CLI, built: inspect the engine's group mid-handoff")
    args = p.parse_args()
    runs = [Run(args, "engine", "safe"), Run(args, "stock", "stock")]
    side_by_side(args, runs)
    engine, stock = runs
    print()
    columns = (
        ("overlaps", "overlapping calls"),
        ("same_process_overlaps", "overlaps within a process"),
        ("lost", "lost"),
        ("process_violations", "order violations"),
        ("inversions", "inversions across processes"),
        ("backward_replays", "backward replays"),
        ("regressions", "offset regressions"),
        ("delivered_again", "delivered again"),
    )
    print("| orderly, 8 queues, 4 processes: join during a 70 s call, kill -9 during a call, graceful leave | " + " | ".join(t for _, t in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for r, label in ((engine, "SafeOrderlyConsumer (the engine, safe)"), (stock, "DefaultMQPushConsumer + MessageListenerOrderly")):
        if r.error is not None:
            label += " (timeline not finished: counts cover only what ran)"
        print(f"| {label} | " + " | ".join(str(r.result[k]) for k, _ in columns) + " |")
    for r in runs:
        if r.error is not None:
            print(f"the {r.name} run did not finish its timeline: {r.error}")
    e, s = engine.result, stock.result
    summary = (
        f"orderly e2e: engine overlaps {e['overlaps']}, lost {e['lost']}, order violations {e['process_violations']}, inversions {e['inversions']}, "
        f"offset regressions {e['regressions']} | DefaultMQPushConsumer overlaps {s['overlaps']}, lost {s['lost']}, "
        f"order violations {s['process_violations']}, inversions {s['inversions']}, offset regressions {s['regressions']}"
    )
    print(summary)
    if engine.error is not None or any(e[k] for k in ("overlaps", "lost", "process_violations", "inversions", "regressions")):
        # To stderr, which run_driver prints last: the reason survives a log cut to its tail.
        raise SystemExit(f"FAILED: {summary}" + ("" if engine.error is None else f"; the engine's timeline did not finish: {engine.error}"))


if __name__ == "__main__":
    main()
