"""One orderly consumer group of a real-broker test, judged against the broker's own tables, and the
report every such test prints. Used by faults.py and soak.py (orderly.py predates the broker
monitor and keeps its own timeline)."""

import time
from pathlib import Path

from calls import BrokerView, consumed, order_figures, overlaps, read_calls
from harness import Processes, RestartableCluster, java, read_faults, wait_for

QUEUES = 8
KEYS = 32
RATE = 20  # messages per second and group
SETTLE_TIMEOUT = 240

# What every run reports, in the order of the table's columns.
COLUMNS = (
    ("without_lock", "began without the lock"),
    ("near_change", "near a lock change"),
    ("broker_down", "began while the broker was down"),
    ("outlived", "outlived its lock"),
    ("overlaps", "overlapping calls"),
    ("outlived_overlaps", "overlaps with a call that outlived its lock"),
    ("same_process_overlaps", "overlaps within a process"),
    ("lost", "lost"),
    ("process_violations", "order violations"),
    ("inversions", "inversions across processes"),
    ("backward_replays", "backward replays"),
    ("regressions", "preventable offset regressions"),
    ("broker_lost", "offsets the broker lost"),
    ("delivered_again", "delivered again"),
)
# The engine's promises: what must be 0 on every run.
MUST_BE_ZERO = ("without_lock", "overlaps", "lost", "process_violations", "inversions", "regressions")
LABELS = {
    "engine": "SafeOrderlyConsumer (the engine, safe, broker watch)",
    "nowatch": "the same without the broker watch (control)",
    "stock": "DefaultMQPushConsumer + MessageListenerOrderly",
}


class OrderlyGroup:
    """A topic, a group, a producer and consumer processes (OrderlyConsumerMain of one kind) in <state>/<name>."""

    def __init__(self, args, test, name, kind):
        self.args, self.name, self.kind = args, name, kind
        self.topic, self.group = f"{test}_{name.upper()}", f"GID_{test}_{name.upper()}"
        self.dir = Path(args.state) / name
        self.procs = Processes(self.dir)

    def log(self, text):
        print(f"  [{self.name}] {text}", flush=True)

    def start_consumer(self, c):
        self.procs.spawn(
            c, java(self.args.java_cp, "OrderlyConsumerMain", self.args.namesrv, self.group, self.topic, self.kind, c, self.dir, log_root=self.dir / "logs")
        )

    def start_producer(self):
        cmd = java(self.args.java_cp, "OrderlyProducerMain", self.args.namesrv, self.topic, KEYS, RATE, self.dir / "sent", self.dir / "producer.stop")
        self.procs.spawn("producer", cmd)

    def calls(self):
        return read_calls(self.dir, time.monotonic_ns())

    def consumed_since(self, ns, consumers):
        """Every consumer in `consumers` has a call begun after ns that returned."""
        calls = self.calls()
        return all(any(c.returned and c.start > ns for c in calls if c.proc == name) for name in consumers)

    def wait_consumed_since(self, ns, consumers, what):
        """Waits until consumed_since(ns, consumers); returns the seconds from ns until the last of them began its first such call."""
        wait_for(f"{self.name}: {what}", lambda: self.consumed_since(ns, consumers), 180, self.procs)
        calls = self.calls()
        return max(min(c.start for c in calls if c.proc == name and c.returned and c.start > ns) for name in consumers) / 1e9 - ns / 1e9

    def stop_producer(self):
        (self.dir / "producer.stop").write_text("stop")
        self.procs.terminate("producer", 60)

    def wait_all_consumed(self):
        sent = self.sent()
        self.log(f"producer stopped after {len(sent)} messages; settling")
        took = wait_for(f"{self.name}: every message to be consumed", lambda: sent <= consumed(self.calls()), SETTLE_TIMEOUT, self.procs)
        self.log(f"everything consumed {took:.0f} s later")

    def sent(self):
        f = self.dir / "sent"
        return set(f.read_text().split()) if f.exists() else set()

    def figures(self, end_ns):
        """Every figure of COLUMNS for this group, from its processes' files and the broker monitor's."""
        calls = read_calls(self.dir, end_ns)
        view = BrokerView(Path(self.args.state) / f"broker-{self.group}.log", read_faults(self.args.state))
        across, within, outlived = overlaps(calls, view.began_with_lock)
        out = {"overlaps": across, "outlived_overlaps": outlived, "same_process_overlaps": within, "lost": len(self.sent() - consumed(calls))}
        out.update(view.classify(calls))
        out.update(order_figures(calls))
        out.update(view.offset_figures())
        return out


def run_on_a_restartable_cluster(args, groups, timeline):
    """Starts a RestartableCluster with the groups' topics and monitors, runs timeline(cluster),
    then stops every process whatever happened; returns (what timeline returned or None, the
    error it raised or None, the end on CLOCK_MONOTONIC). The checker runs on what was logged
    either way."""
    cluster = RestartableCluster(args.java_cp, args.state, [(g.topic, QUEUES) for g in groups], [(g.group, g.topic) for g in groups])
    result = error = None
    try:
        args.namesrv = cluster.namesrv
        print(f"NameServer and a restartable broker 5.3.3 (two processes), NameServer at {args.namesrv}", flush=True)
        result = timeline(cluster)
    except BaseException as e:  # reported by the caller
        error = e
    finally:
        end_ns = time.monotonic_ns()
        for g in groups:
            g.procs.stop_all(timeout=90)
        cluster.stop()
    return result, error, end_ns


def report(test, title, groups, results, columns=COLUMNS, error=None):
    """Prints the table, then the one summary line `<test> e2e: ...` with every count; fails the
    run (SystemExit) when the engine broke a promise or the timeline did not finish."""
    print()
    print(f"| {title} | " + " | ".join(t for _, t in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for g in groups:
        print(f"| {LABELS[g.name]} | " + " | ".join(str(results[g.name][k]) for k, _ in columns) + " |")
    if error is not None:
        print(f"the timeline did not finish (counts cover only what ran): {error}")
    print(f"{test} e2e: " + " | ".join(f"{g.name} " + ", ".join(f"{k.replace('_', ' ')} {results[g.name][k]}" for k, _ in columns) for g in groups))
    engine = results["engine"]
    if error is not None or any(engine[k] for k in MUST_BE_ZERO):
        raise SystemExit(1)
