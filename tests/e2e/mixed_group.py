#!/usr/bin/env python3
"""Go and Java push consumers in one consumer group on a real NameServer and Broker.

Driven by scripts/e2e/mixed-go.sh, which builds the pieces and passes their paths. The cluster
(bindings/java ...cluster.ClusterMain) and every consumer are their own processes; consumers write
what they hold to <name>.held.json after every allocation (and append it to <name>.held.log, the
history, with a wall-clock time) and what they consumed to <name>.consumed
(see HoldingsFile.java and tests/e2e/go-consumer). Two runs on one broker, each with its own
group and 16-queue topic:

  ours     2 Go consumers with rmqrebalance.ConsistentHash(10).AllocateStrategy() and 2 Java
           consumers with NativeAllocateMessageQueueConsistentHash(10). The group must settle with
           every queue held by exactly one consumer, again after a Go consumer joins and again
           after one leaves, and every message sent must be consumed. Any failure fails the script.
  control  the same group made of the Go client's own AllocateByConsistentHash(10) and the Java
           client's own AllocateMessageQueueConsistentHash(10): queues with no owner, queues with
           two, and messages not consumed within the run are counted and reported, not asserted
           (the client ids, and so the counts, change from run to run).
"""

import argparse
import json
import subprocess
import time
from pathlib import Path

from harness import Cluster, Processes, java, wait_for
from oracle import admin_read, differences

QUEUES = 16
BATCH = 300
SETTLE_TIMEOUT = 180.0  # the Go client rebalances every 20 s, and on the broker's notification
STABLE_FOR = 3.0
GO_REBALANCE = 20.0
# What the fixed group's Go members run, for inspect's expected map: the Go client names no
# strategy. The Java members' NativeAllocateMessageQueueConsistentHash names itself and its
# parameters in their running info, which inspect reads.
OURS_STRATEGIES = ('GO=consistent_hash:{"virtual_node_count":10}',)


class Group:
    """The consumer processes of one run, and what their files say."""

    def __init__(self, args, run, group, topic):
        self.args, self.group, self.topic = args, group, topic
        self.dir = Path(args.state) / run
        self.procs = Processes(self.dir)
        self.sent = 0

    def start_java(self, name, strategy, instance="-", extra_topic="-", mode="concurrent"):
        cmd = java(
            self.args.java_cp,
            "JavaConsumerMain",
            self.args.namesrv,
            self.group,
            self.topic,
            strategy,
            name,
            self.dir,
            instance,
            extra_topic,
            mode,
            log_root=self.dir / "logs",
        )
        self._spawn(name, cmd, f"java {strategy} {mode}")

    def start_go(self, name, strategy, mode="concurrent"):
        self._spawn(name, [self.args.go_consumer, self.args.namesrv, self.group, self.topic, strategy, name, str(self.dir), mode], f"go {strategy} {mode}")

    def _spawn(self, name, cmd, label):
        self.procs.spawn(name, cmd)
        print(f"  {name} started ({label})", flush=True)

    def stop(self, name):
        code = self.procs.terminate(name, 60)
        if code is None:
            raise SystemExit(f"{name} did not shut down within 60 s")
        print(f"  {name} shut down (exit {code})", flush=True)

    def stop_all(self):
        self.procs.stop_all()

    def holdings(self):
        """name -> the consumer's last record, for the running consumers that wrote one."""
        out = {}
        for name in self.procs.procs:
            try:
                out[name] = json.loads((self.dir / (name + ".held.json")).read_text())
            except (FileNotFoundError, json.JSONDecodeError):
                pass
        return out

    def view(self):
        """(does every running consumer see exactly the running group?, holders per queue, records)."""
        recs = self.holdings()
        ids = {r["client_id"] for r in recs.values()}
        complete = len(recs) == len(self.procs.procs) and all(set(r["cids"]) == ids and len(r["cids"]) == len(ids) for r in recs.values())
        holders = {q: [] for q in range(QUEUES)}
        for name, r in recs.items():
            for q in r["queues"]:
                holders[q].append(name)
        return complete, holders, recs

    def settle(self, phase):
        """Waits until every running consumer sees the whole group and every queue has one holder."""
        start = time.monotonic()
        stable_since, last_key, why = None, None, "no consumer has allocated yet"
        while time.monotonic() - start < SETTLE_TIMEOUT:
            self.procs.check_alive()
            complete, holders, recs = self.view()
            key = json.dumps({n: (sorted(r["cids"]), r["queues"]) for n, r in recs.items()}, sort_keys=True)
            bad = {q: h for q, h in holders.items() if len(h) != 1}
            if not complete:
                why = "not every consumer sees the same, whole group yet"
            elif bad:
                why = "queues without exactly one holder: " + ", ".join(f"{q}: {h}" for q, h in sorted(bad.items()))
            if complete and not bad:
                if key != last_key:
                    stable_since = time.monotonic()
                elif time.monotonic() - stable_since >= STABLE_FOR:
                    took = time.monotonic() - start
                    shares = ", ".join(f"{n} {len(r['queues'])}" for n, r in sorted(recs.items()))
                    print(f"  settled ({phase}) in {took:.1f} s: each of {QUEUES} queues held once ({shares})", flush=True)
                    return
            else:
                stable_since = None
            last_key = key
            time.sleep(0.5)
        raise SystemExit(f"the group did not settle ({phase}) within {SETTLE_TIMEOUT:.0f} s: {why}")

    def inspect(self, *strategies, topics=None):
        """Runs `rmq-rebalance inspect` on `topics` (default: this group's topic; empty: every topic
        the group subscribes to): (exit status, its JSON, the snapshot it saved)."""
        saved = self.dir / "inspect-snapshot.json"
        cmd = [self.args.rmq_rebalance, "inspect", "--namesrv", self.args.namesrv, "--group", self.group, "--json", "--save", str(saved)]
        for t in (self.topic,) if topics is None else topics:
            cmd += ["--topic", t]
        for s in strategies:
            cmd += ["--strategy-of", s]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if done.returncode == 2:
            return 2, done.stderr.strip(), None
        return done.returncode, json.loads(done.stdout), json.loads(saved.read_text())

    def inspect_agrees(self, expect_healthy, *strategies, timeout=30.0, rings=None):
        """Checks `inspect` against what the consumers wrote themselves: each client's holdings as
        decoded from its running info, and the orphaned and double-held queues it reports, must be
        the held files' (retried for `timeout` s, since the two are written apart); in the fixed
        group it must also find nothing (exit 0). `rings` (go label, java label): every client's
        strategy must be found by fingerprint, as what it really runs, and `mixed_strategies`
        reported. Returns a one-line account; fails on a lasting mismatch."""
        start, why = time.monotonic(), "not run yet"
        while time.monotonic() - start < timeout:
            before = self.view()
            code, out, snapshot = self.inspect(*strategies)
            complete, holders, recs = self.view()
            if code == 2:
                why = f"inspect could not inspect: {out}"
            elif json.dumps(before[1]) != json.dumps(holders):
                why = "the group moved while it was inspected"
            else:
                decoded = {
                    c["client_id"]: sorted(h["queue"][2] for h in (c["running"] or {}).get("held", []) if h["queue"][0] == self.topic and not h["dropped"])
                    for c in snapshot["clients"]
                }
                wrote = {r["client_id"]: sorted(r["queues"]) for r in recs.values()}
                found = {
                    k: sorted(int(q.rsplit(":", 1)[1]) for f in out["findings"] if f["kind"] == k for q in f["queues"]) for k in ("orphaned", "double_held")
                }
                truth = {"orphaned": sorted(q for q, h in holders.items() if not h), "double_held": sorted(q for q, h in holders.items() if len(h) > 1)}
                if decoded != wrote:
                    why = f"decoded holdings {decoded}, written {wrote}"
                elif found != truth:
                    why = f"inspect found {found}, the consumers' files say {truth}"
                elif expect_healthy and code != 0:
                    why = f"inspect reported findings in a healthy group: {out['findings']}"
                elif expect_healthy and not all(r["expected"] for r in out["queues"]):
                    why = "inspect did not know every member's strategy: " + str([r for r in out["queues"] if not r["expected"]])
                elif rings and (found_rings := self.rings_found(out, recs, rings)):
                    why = found_rings
                else:
                    named = sorted({s["strategy"] or f"unknown ({s['client_id']} holds nothing)" for s in out["strategies"]})
                    rings_seen = f"; fingerprinted as {named}, mixed_strategies reported" if rings else ""
                    return f"inspect agrees: {len(wrote)} clients' holdings decoded as written, orphaned {truth['orphaned']}, double-held {truth['double_held']}, exit {code}{rings_seen}"
            time.sleep(2)
        raise SystemExit(f"rmq-rebalance inspect disagrees with what the consumers of {self.group} wrote: {why}")

    def oracle_agrees(self, timeout=60.0):
        """RocketMQ's own admin client reads the group after inspect; the two decodings must agree
        field by field (retried for `timeout` s: the group may move between the two reads).
        Inspect reads every subscribed topic here, as the admin client does."""
        start, why = time.monotonic(), "not run yet"
        while time.monotonic() - start < timeout:
            code, out, ours = self.inspect(topics=())
            if code == 2:
                why = f"inspect could not inspect: {out}"
            else:
                theirs = admin_read(self.args.java_cp, self.args.namesrv, self.group, self.dir / "logs")
                diff, compared = differences(ours, theirs)
                if not diff:
                    held = sum(len(c["running"]["held"]) for c in theirs["clients"] if c.get("running"))
                    return (
                        f"DefaultMQAdminExt agrees on all {compared} fields compared: {len(theirs['connections'])} connections, "
                        f"{len(theirs['clients'])} clients' running info ({held} held entries), {len(theirs['offsets'])} offsets"
                    )
                why = "; ".join(diff[:5])
            time.sleep(3)
        raise SystemExit(f"inspect's decoding and DefaultMQAdminExt's differ for {self.group}: {why}")

    @staticmethod
    def rings_found(out, recs, rings):
        """What is wrong with the strategies `inspect` found (empty: nothing): each Go consumer on
        rings[0], each Java one on rings[1], both by fingerprint, and the mix reported."""
        found = {s["client_id"]: (s["strategy"], s["source"]) for s in out["strategies"]}
        # A member whose ring gives it no queue holds nothing, and nothing can be fingerprinted from
        # nothing (docs/inspect.md): with 4 ids on one ring that happens for some pids.
        want = {
            r["client_id"]: (rings[0] if name.startswith("go") else rings[1], "fingerprint") if r["queues"] else (None, "unknown") for name, r in recs.items()
        }
        if found != want:
            return f"inspect found the strategies {found}, the consumers run {want}"
        rings_seen = {ring for ring, source in want.values() if source == "fingerprint"}
        if len(rings_seen) > 1 and not any(f["kind"] == "mixed_strategies" for f in out["findings"]):
            return "inspect did not report mixed_strategies: " + str([f["kind"] for f in out["findings"]])
        return ""

    def wait_for_group(self, extra):
        """For the control: waits until every consumer sees the whole group, then `extra` seconds."""
        wait_for("the control group's consumers to see the whole group", lambda: self.view()[0], SETTLE_TIMEOUT, self.procs)
        time.sleep(extra)

    def produce(self):
        cmd = java(self.args.java_cp, "ProducerMain", self.args.namesrv, self.topic, self.sent, BATCH, self.dir / "sent", log_root=self.dir / "logs")
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise SystemExit("the producer failed:\n" + done.stdout + done.stderr)
        self.sent += BATCH

    def ownership(self, end_ms):
        """(queue-seconds with no holder, queue-seconds with two or more), from every consumer's
        history (<name>.held.log: each record holds until the same consumer's next one; a stopped
        one holds nothing), from the first record of the run until end_ms (wall clock, as at_ms)."""
        events = []  # (at_ms, name, queues)
        for f in self.dir.glob("*.held.log"):
            for line in f.read_text().splitlines():
                r = json.loads(line)
                events.append((r["at_ms"], r["name"], [] if r["stopped"] else r["queues"]))
        events.sort()
        held, unowned, double = {}, 0, 0
        for (at, name, queues), nxt in zip(events, [e[0] for e in events[1:]] + [end_ms]):
            held[name] = queues
            counts = [0] * QUEUES
            for qs in held.values():
                for q in qs:
                    counts[q] += 1
            span = max(0, nxt - at) / 1000
            unowned += span * sum(1 for c in counts if c == 0)
            double += span * sum(1 for c in counts if c > 1)
        return unowned, double

    def consumption(self):
        """(bodies sent, bodies consumed at least once, deliveries in all)."""
        sent = set((self.dir / "sent").read_text().split()) if self.sent else set()
        seen, deliveries = set(), 0
        for f in self.dir.glob("*.consumed"):
            bodies = f.read_text().split()
            deliveries += len(bodies)
            seen.update(bodies)
        return sent, seen, deliveries

    def wait_consumed(self, timeout, quiet_for=None):
        """Until every sent body is consumed, or nothing new arrives for quiet_for s, or timeout."""
        start = last_change = time.monotonic()
        last = -1
        while time.monotonic() - start < timeout:
            self.procs.check_alive()
            sent, seen, _ = self.consumption()
            if sent <= seen:
                return
            if len(seen) != last:
                last, last_change = len(seen), time.monotonic()
            elif quiet_for is not None and time.monotonic() - last_change >= quiet_for:
                return
            time.sleep(0.5)


def run_ours(args):
    print("-- ours: 2 Go (rmqrebalance.ConsistentHash(10)) + 2 Java (NativeAllocateMessageQueueConsistentHash(10))", flush=True)
    g = Group(args, "ours", "GID_MIXED_OURS", "MIXED_OURS")
    try:
        for name, go in (("go1", True), ("go2", True), ("java1", False), ("java2", False)):
            g.start_go(name, "ours") if go else g.start_java(name, "native")
        g.settle("2 Go + 2 Java")
        print(f"  {g.inspect_agrees(True, *OURS_STRATEGIES)}", flush=True)
        g.produce()
        g.start_go("go3", "ours")
        g.settle("go3 joined")
        g.produce()
        g.stop("go1")
        g.settle("go1 left")
        print(f"  {g.inspect_agrees(True, *OURS_STRATEGIES)}", flush=True)
        g.produce()
        g.wait_consumed(timeout=180)
        print(f"  {g.oracle_agrees()}", flush=True)
        sent, seen, deliveries = g.consumption()
        lost = len(sent - seen)
        print(f"  consumed {len(sent & seen)} of {len(sent)} sent ({deliveries - len(seen)} redelivered at handoffs)", flush=True)
        if lost:
            raise SystemExit(f"{lost} messages were never consumed")
        unowned, double = g.ownership(time.time() * 1000)
        print(f"  over the run: {unowned:.0f} queue-seconds without an owner (handoffs), {double:.0f} with two or more", flush=True)
        return len(sent), unowned, double
    finally:
        g.stop_all()


def run_control(args):
    print("-- control: 2 Go (the Go client's AllocateByConsistentHash(10)) + 2 Java (AllocateMessageQueueConsistentHash(10))", flush=True)
    g = Group(args, "control", "GID_MIXED_CONTROL", "MIXED_CONTROL")
    try:
        for name, go in (("go1", True), ("go2", True), ("java1", False), ("java2", False)):
            g.start_go(name, "goclient") if go else g.start_java(name, "original")
        # Past the Go client's periodic round, so every consumer has answered for the whole group.
        g.wait_for_group(extra=GO_REBALANCE + 5)
        _, holders, recs = g.view()
        unowned = sorted(q for q, h in holders.items() if not h)
        double = sorted(q for q, h in holders.items() if len(h) > 1)
        shares = ", ".join(f"{n} {r['queues']}" for n, r in sorted(recs.items()))
        print(f"  holdings: {shares}", flush=True)
        print(f"  queues with no owner: {unowned}; with two or more: {double}", flush=True)
        # Nothing stated: inspect must tell each client's ring from what it holds.
        rings = ('go_consistent_hash{"virtual_node_count":10}', 'consistent_hash{"virtual_node_count":10}')
        print(f"  {g.inspect_agrees(False, rings=rings)}", flush=True)
        # The table an operator reads (the README shows one from this run).
        table = subprocess.run(
            [args.rmq_rebalance, "inspect", "--namesrv", args.namesrv, "--group", g.group, "--topic", g.topic], capture_output=True, text=True, timeout=120
        )
        print("  rmq-rebalance inspect --group GID_MIXED_CONTROL --topic MIXED_CONTROL (exit %d):" % table.returncode, flush=True)
        print("\n".join("    " + line for line in table.stdout.splitlines()), flush=True)
        g.produce()
        g.wait_consumed(timeout=90, quiet_for=15)
        sent, seen, _ = g.consumption()
        seconds_unowned, seconds_double = g.ownership(time.time() * 1000)
        print(f"  over the run: {seconds_unowned:.0f} queue-seconds without an owner, {seconds_double:.0f} with two or more", flush=True)
        return len(unowned), len(double), len(sent - seen), len(sent), seconds_unowned, seconds_double
    finally:
        g.stop_all()


def run_wrong(args):
    """Two groups built to be wrong in known ways, each of which inspect must name exactly: two
    processes given one client id (one instance name), and a member subscribing to a topic the
    others do not. Ground truth: the ids each consumer prints into its held file."""
    print("-- wrong: java1 and java2 share one instance name (one client id); java4 also subscribes to MIXED_EXTRA", flush=True)
    g = Group(args, "wrong", "GID_MIXED_WRONG", "MIXED_WRONG")
    try:
        g.start_java("java1", "native", instance="shared")
        g.start_java("java2", "native", instance="shared")
        g.start_java("java3", "native")
        g.start_java("java4", "native", extra_topic="MIXED_EXTRA")
        wait_for("all four wrong-group consumers to write their holdings", lambda: len(g.view()[2]) == 4, SETTLE_TIMEOUT, g.procs)
        # Two 5.3.3 Java processes on one id break each other's connections (their requests time
        # out and they reconnect), so the broker lists the id on one connection at a time, and a
        # read sees both only now and then: `duplicate_client_id` when it does, and otherwise the
        # id's running info unavailable (the relay times out). Either names the shared id, and
        # `duplicate_client_id` may name no other. Under load another member's relay can time out
        # too (a CI run once failed on that), so `running_info_unavailable` for another id is
        # counted and printed, not failed on. The extra subscription must be read exactly every time.
        start, why, seen, others_unavailable = time.monotonic(), "not run yet", set(), 0
        while time.monotonic() - start < 150:
            ids = {n: r["client_id"] for n, r in g.view()[2].items()}
            if ids["java1"] != ids["java2"]:
                raise SystemExit(f"the shared instance name gave two ids: {ids}")
            code, out, _ = g.inspect(topics=(g.topic, "MIXED_EXTRA"))
            if code == 2:
                why = f"inspect could not inspect: {out}"
                time.sleep(3)
                continue
            for f in out["findings"]:
                if f["kind"] in ("duplicate_client_id", "running_info_unavailable"):
                    if f["clients"] == [ids["java1"]]:
                        seen.add(f["kind"])
                    elif f["kind"] == "running_info_unavailable" and ids["java1"] not in f["clients"]:
                        others_unavailable += 1
                    else:
                        raise SystemExit(f"inspect named another id than the shared one: {f}")
                if f["kind"] == "mixed_subscriptions":
                    # java4 is the only subscriber, whatever the others' running info says.
                    if f["topic"] != "MIXED_EXTRA" or f"filter TAG * ({ids['java4']})" not in f["detail"]:
                        raise SystemExit(f"inspect misread the subscriptions: {f}")
                    seen.add("mixed_subscriptions")
            if "mixed_subscriptions" in seen and "duplicate_client_id" in seen:
                break
            why = f"seen so far {sorted(seen)}; last read's findings {[f['kind'] for f in out['findings']]}"
            time.sleep(3)
        if "mixed_subscriptions" in seen and seen & {"duplicate_client_id", "running_info_unavailable"}:
            shared = " and ".join(sorted(seen - {"mixed_subscriptions"}))
            print(f"  inspect names both: {shared} for {ids['java1']}, mixed_subscriptions MIXED_EXTRA subscribed by {ids['java4']} only", flush=True)
            if others_unavailable:
                print(f"  (another member's running info timed out on {others_unavailable} reads)", flush=True)
            return
        raise SystemExit(f"rmq-rebalance inspect misjudged the wrong group: {why}")
    finally:
        g.stop_all()


def group_driver_args(description):
    """The arguments every driver of a group of consumer processes takes (spring_group.py too)."""
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--java-cp", required=True)
    p.add_argument("--go-consumer", required=True)
    p.add_argument("--rmq-rebalance", required=True, help="the CLI, built")
    p.add_argument("--state", required=True)
    return p


def main():
    args = group_driver_args(__doc__).parse_args()
    cluster = Cluster(args.java_cp, args.state, [("MIXED_OURS", QUEUES), ("MIXED_CONTROL", QUEUES), ("MIXED_WRONG", QUEUES), ("MIXED_EXTRA", 4)])
    try:
        args.namesrv = cluster.namesrv
        print(f"NameServer + Broker 5.3.3 (own process) at {args.namesrv}", flush=True)
        total, ours_unowned_s, ours_double_s = run_ours(args)
        unowned, double, unconsumed, sent, unowned_s, double_s = run_control(args)
        run_wrong(args)
    finally:
        cluster.stop()
    print()
    print(
        f"| 2 Go + 2 Java consumers, one group, {QUEUES} queues | queues with no owner, settled | with two owners, settled "
        "| messages not consumed by the end of the run | queue-seconds without an owner, whole run | with two or more, whole run |"
    )
    print("|---|---|---|---|---|---|")
    print(f"| rmqrebalance (Go) + NativeAllocateMessageQueueConsistentHash (Java) | 0 | 0 | 0 of {total} | {ours_unowned_s:.0f} | {ours_double_s:.0f} |")
    print(
        f"| Go client's AllocateByConsistentHash + Java's AllocateMessageQueueConsistentHash | {unowned} | {double} | {unconsumed} of {sent} "
        f"| {unowned_s:.0f} | {double_s:.0f} |"
    )
    print(
        f"mixed group e2e: ours unowned 0, double-owned 0, lost 0 of {total}, queue-seconds unowned {ours_unowned_s:.0f}, double {ours_double_s:.0f} | "
        f"clients' own: unowned {unowned}, double-owned {double}, not consumed {unconsumed} of {sent}, "
        f"queue-seconds unowned {unowned_s:.0f}, double {double_s:.0f}"
    )


if __name__ == "__main__":
    main()
