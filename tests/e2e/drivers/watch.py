#!/usr/bin/env python3
"""`rmq-rebalance watch` on a real NameServer and Broker, watching every group of the cluster,
checked against what the consumers themselves write.

Driven by tests/e2e/run/watch.sh. One `watch` process (2 s rounds, per-queue series, owner changes
to a file) runs the whole time, while:

  healthy  a Java consumer of GID_WATCH_OK holds the 16 queues of WATCH_OK; a second joins and takes
           its share. Each queue's owner changes must go from the first to the second (a round may
           catch both holding it for a moment), and the queues moved must be exactly those the
           second's own held file lists; the group
           must then read OK, two members, no queue with a cause, and its lag drained to 0.
  offline  a Java consumer of GID_WATCH_GONE consumes WATCH_GONE, then shuts down; 300 messages are
           sent after it left. The group has nobody online: `watch` must still judge it (inspect
           refuses such a group), every one of the 16 queues with the cause `member_down`, the stuck
           lag the 300 messages sent, and the status STOP once the window has seen no commit.

Ground truth is the consumers' held files and the producer's count; timing is never asserted, each
wait is a generous bound on rounds that `watch` runs by its own clock.
"""

import json
import re
import urllib.request
from pathlib import Path

from fixtures.harness import Cluster, Processes, wait_for
from fixtures.push_group import BATCH, QUEUES, Group, group_driver_args

TIMEOUT = 180.0


class Watch:
    """The `watch` process, and what it serves and writes."""

    def __init__(self, args, state, interval="2s", extra=()):
        self.dir = Path(state) / "watch"
        self.procs = Processes(self.dir)
        self.events = self.dir / "events.jsonl"
        cmd = [args.rmq_rebalance, "watch", "--namesrv", args.namesrv, "--interval", interval, "--listen", "127.0.0.1:0", "--per-queue"]
        self.procs.spawn("watch", cmd + ["--events", str(self.events), *extra])
        log = self.dir / "watch.log"
        wait_for("watch to serve (see watch/watch.log)", lambda: "serving http://" in log.read_text(), 60, self.procs)
        self.addr = log.read_text().split("serving http://")[1].split("/")[0]

    def metrics(self):
        """{series line without its value: value} of the last round."""
        with urllib.request.urlopen(f"http://{self.addr}/metrics", timeout=30) as r:
            text = r.read().decode()
        out = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                series, value = line.rsplit(" ", 1)
                out[series] = float(value)
        return out

    def value(self, m, name, **labels):
        """The one series of `name` with these labels among others (None when there is none)."""
        want = [f'{k}="{v}"' for k, v in labels.items()]
        found = [v for s, v in m.items() if s.startswith(name + "{") and all(w in s for w in want)]
        return sum(found) if found else None

    def changes(self, group):
        if not self.events.exists():
            return []
        return [c for c in map(json.loads, self.events.read_text().splitlines()) if c["consumer_group"] == group]

    def until(self, what, check):
        """Polls the metrics until check(metrics) returns (True, _); fails with its last reason."""
        why = "not asked yet"

        def ok():
            nonlocal why
            done, why = check(self.metrics())
            return done

        try:
            wait_for(what, ok, TIMEOUT, self.procs, every=1.0)
        except SystemExit as e:
            raise SystemExit(f"{e}: {why}") from None


def healthy(args, w):
    g = Group(args, "healthy", "GID_WATCH_OK", "WATCH_OK")
    try:
        g.start_java("java1", "native")
        g.settle("java1 alone")
        cid1 = g.holdings()["java1"]["client_id"]

        def one_holder(m):
            held = [s for s in m if s.startswith("rmq_rebalance_queue_holder_info{") and 'consumer_group="GID_WATCH_OK"' in s and 'topic="WATCH_OK"' in s]
            return len(held) == QUEUES and all(f'client_id="{cid1}"' in s for s in held), f"{len(held)} queues held as watch sees it"

        w.until("watch to see java1 hold every queue", one_holder)
        g.start_java("java2", "native")
        g.settle("java2 joined")
        recs = g.holdings()
        cid2, moved = recs["java2"]["client_id"], sorted(recs["java2"]["queues"])
        g.produce()
        g.wait_consumed(TIMEOUT)

        def settled(m):
            labels = {"consumer_group": "GID_WATCH_OK"}
            status_ok = w.value(m, "rmq_rebalance_group_status", status="OK", **labels)
            members = w.value(m, "rmq_rebalance_group_members", **labels)
            causes = w.value(m, "rmq_rebalance_topic_cause_queues", **labels)
            lag = w.value(m, "rmq_rebalance_topic_lag_messages", topic="WATCH_OK", **labels)
            moved_seen = sorted({c["queue_id"] for c in w.changes("GID_WATCH_OK") if c["topic"] == "WATCH_OK"})
            why = f"status OK {status_ok}, members {members}, queues with a cause {causes}, lag {lag}, moves seen {moved_seen}"
            return (status_ok, members, causes, lag, moved_seen) == (1, 2, 0, 0, moved), why

        w.until("GID_WATCH_OK healthy after java2's join, its moves seen", settled)
        changes = [c for c in w.changes("GID_WATCH_OK") if c["topic"] == "WATCH_OK"]
        # Per queue, the first owner and the last: java1, then java2. In between a round may have
        # caught both holding it (java2 took it before java1 dropped it): a true moment, said so.
        per_queue = {}
        for c in changes:
            per_queue.setdefault(c["queue_id"], []).append(c)
        wrong = {q: cs for q, cs in per_queue.items() if cs[0]["from"] != [cid1] or cs[-1]["to"] != [cid2]}
        if wrong:
            raise SystemExit(f"healthy: owner changes that are not java1 to java2: {wrong}")
        both = sum(1 for c in changes if len(c["to"]) > 1)
        print(
            f"  healthy: {len(changes)} owner changes ({both} through a moment held by both), exactly java2's {len(moved)} queues from java1; "
            "OK, 2 members, no cause, lag 0",
            flush=True,
        )
        return len(changes)
    finally:
        g.stop_all()


def offline(args, w):
    g = Group(args, "offline", "GID_WATCH_GONE", "WATCH_GONE")
    try:
        g.start_java("java3", "native")
        g.settle("java3 alone")
        g.produce()
        g.wait_consumed(TIMEOUT)
        g.stop("java3")
        g.produce()

        def gone(m):
            labels = {"consumer_group": "GID_WATCH_GONE"}
            members = w.value(m, "rmq_rebalance_group_members", **labels)
            down = w.value(m, "rmq_rebalance_topic_cause_queues", topic="WATCH_GONE", cause="member_down", **labels)
            stuck = w.value(m, "rmq_rebalance_topic_stuck_lag_messages", topic="WATCH_GONE", **labels)
            stop = w.value(m, "rmq_rebalance_topic_queues", topic="WATCH_GONE", status="STOP", **labels)
            return (members, down, stuck, stop) == (0, QUEUES, BATCH, QUEUES), f"members {members}, member_down {down}, stuck lag {stuck}, STOP {stop}"

        w.until("GID_WATCH_GONE judged offline, its lag stuck, every queue STOP", gone)
        print(f"  offline: 0 members, {QUEUES} queues member_down and STOP, stuck lag {BATCH} = the messages sent after it left", flush=True)
    finally:
        g.stop_all()


def main():
    args = group_driver_args(__doc__).parse_args()
    cluster = Cluster(args.java_cp, args.state, [("WATCH_OK", QUEUES), ("WATCH_GONE", QUEUES)])
    w = None
    try:
        args.namesrv = cluster.namesrv
        print(f"NameServer + Broker 5.3.3 (own process) at {args.namesrv}", flush=True)
        w = Watch(args, args.state)
        moves = healthy(args, w)
        offline(args, w)
        m = w.metrics()
        rounds = w.value(m, "rmq_rebalance_rounds_total")
        sent = sum(v for s, v in m.items() if s.startswith("rmq_rebalance_requests_total{"))
        failed = {re.search(r'request="([A-Z_]+)"', s).group(1): v for s, v in m.items() if s.startswith("rmq_rebalance_request_failures_total{") and v}
        print(
            f"watch e2e: {moves} owner changes matched the consumers' own files, an offline group judged with its stuck lag; "
            f"{rounds:.0f} rounds, {sent:.0f} requests, failed: {failed or 'none'}",
            flush=True,
        )
    finally:
        if w is not None:
            w.procs.stop_all()
        cluster.stop()


if __name__ == "__main__":
    main()
