#!/usr/bin/env python3
"""Held queues that nobody consumes, made on a real NameServer and Broker, each of which
`rmq-rebalance inspect` must name exactly, and see heal.

Driven by tests/e2e/run/inspect-liveness.sh. Three groups, each on its own topic, run side by side
(each waits on the broker's 60 s lock expiry or on the clients' pull loops, so in turn they would
take three times as long):

  revoke  a Go orderly consumer holds all 16 queues; a Java orderly consumer joins. The Go client
          gives up half the queues without unlocking them (rocketmq-client-go's
          removeUnnecessaryMessageQueue is a TODO for orderly), and Java's orderly rebalance takes
          a queue only once the broker grants its lock: exactly the Java member's share must be
          reported `orphaned`, saying why, while the Go locks last (at least 40 s: Go renews every
          20 s, the broker keeps a lock 60 s), and the group must come out healthy once they lapse.
  stuck   a Java orderly consumer holds 4 queues and is frozen (SIGSTOP) past the broker's lock
          expiry; another process (LockHogMain, outside the group) takes queue 0's lock meanwhile
          and keeps renewing it. Thawed, the consumer keeps the queue without its lock: exactly
          `orderly_lock_stuck` on queue 0 naming it, and healthy again once the other process ends.
  idle    a Go consumer whose one consume goroutine hangs in the listener, pulling one message at a
          time: 40 messages sent to each of queues 0 and 1 fill those queues' hand-over channels
          (32 batches) and block their pull loops. Exactly those two must be reported
          `not_pulled` (queues 2 and 3 keep long-polling). The Go client drops a queue idle for 120 s and takes it again, and the new
          pull blocks the same way, so the finding comes and goes: the reads are polled and their
          union must be {0, 1}, each read naming no other queue.

Ground truth is what each process writes: the consumers' held files, the time the other process
was granted the lock, which queues messages were sent to. Timing is never asserted: each wait is a
generous bound on something the broker or a client does by its own clock, and only the findings
seen are checked.
"""

import json
import subprocess
import threading
import time

from fixtures.harness import Cluster, java, scenario_failures, wait_for
from fixtures.push_group import Group, group_driver_args

GO_OURS = 'GO=consistent_hash:{"virtual_node_count":10}'
REVOKE_QUEUES, SMALL_QUEUES = 16, 4
# The Go client renews its orderly locks every 20 s and the broker keeps one 60 s after its last
# renewal: a queue the Go client gave up stays locked at least 40 s after it did.
GO_LOCK_FLOOR_S = 40.0
HEAL_TIMEOUT = 180.0


def queue_ids(finding):
    return sorted(int(q.rsplit(":", 1)[1]) for q in finding["queues"])


def poll(g, what, check, timeout, *strategies, every=2.0):
    """Runs inspect until check(code, out) returns a result (not None); fails after timeout s with
    the last reason check gave (check returns (None, why) to go on)."""
    start, why = time.monotonic(), "not run yet"
    while time.monotonic() - start < timeout:
        g.procs.check_alive()
        code, out, _ = g.inspect(*strategies)
        if code == 2:
            why = f"inspect could not inspect: {out}"
        else:
            result, why = check(code, out)
            if result is not None:
                return result
        time.sleep(every)
    raise SystemExit(f"{g.group}: {what} not seen within {timeout:.0f} s: {why}")


def healthy_holding(name, g, count, locked):
    """A check: inspect finds nothing, and client `name` holds `count` queues (all locked if asked)."""

    def check(code, out):
        cid = g.holdings().get(name, {}).get("client_id")
        held = [r for r in out["queues"] if r["holders"] == [cid]]
        if code != 0:
            return None, f"findings {[(f['kind'], f['queues']) for f in out['findings']]}"
        if len(held) != count:
            return None, f"{name} holds {len(held)} of {count} queues"
        if locked and not all_locked(g, cid):
            return None, f"{name} does not hold every lock yet"
        return True, ""

    return check


def all_locked(g, cid):
    snapshot = json.loads((g.dir / "inspect-snapshot.json").read_text())
    for c in snapshot["clients"]:
        if c["client_id"] == cid and c["running"]:
            return all(h["locked"] for h in c["running"]["held"] if h["queue"][0] == g.topic)
    return False


def run_revoke(args):
    g = Group(args, "revoke", "GID_GO_REVOKE", "GO_REVOKE")
    try:
        g.start_go("go1", "ours", mode="orderly")
        poll(g, "go1 holding and locking all 16 queues", healthy_holding("go1", g, REVOKE_QUEUES, True), 120, GO_OURS)
        g.start_java("java1", "native", mode="orderly")
        wait_for("go1 and java1 to see each other", lambda: g.view()[0] and len(g.view()[2]) == 2, 120, g.procs)
        recs = g.holdings()
        moved, java_id = sorted(recs["java1"]["queues"]), recs["java1"]["client_id"]
        # The revoke: go1's first allocation over both members (its history, <name>.held.log).
        history = [json.loads(line) for line in (g.dir / "go1.held.log").read_text().splitlines()]
        revoked_ms = next(r["at_ms"] for r in history if len(r["cids"]) == 2)
        print(f"  revoke: java1 joined; go1 gave up {moved} without unlocking them", flush=True)

        def orphaned_exactly(code, out):
            age = time.time() - revoked_ms / 1000
            kinds = [(f["kind"], queue_ids(f)) for f in out["findings"]]
            if kinds == [("orphaned", moved)] and "Go never unlocks" in out["findings"][0]["detail"]:
                return age, ""
            if age > GO_LOCK_FLOOR_S:
                raise SystemExit(f"revoke: {age:.0f} s after the revoke inspect had not named java1's share orphaned: {kinds}")
            return None, f"findings {kinds}"

        age = poll(g, "java1's share orphaned", orphaned_exactly, GO_LOCK_FLOOR_S, GO_OURS)
        print(f"  revoke: inspect names exactly {len(moved)} queues orphaned, Go's lock named as the reason, {age:.0f} s after the revoke", flush=True)
        poll(g, "the group healthy again", healthy_holding("java1", g, len(moved), True), HEAL_TIMEOUT, GO_OURS)
        healed = time.time() - revoked_ms / 1000
        print(f"  revoke: healthy {healed:.0f} s after the revoke (java1 got the locks once Go's lapsed); {java_id} holds its share", flush=True)
        return {"orphaned": len(moved), "healed_s": healed}
    finally:
        g.stop_all()


def run_stuck(args):
    g = Group(args, "stuck", "GID_LOCK_STUCK", "LOCK_STUCK")
    try:
        g.start_java("java2", "native", mode="orderly")
        poll(g, "java2 holding and locking all 4 queues", healthy_holding("java2", g, SMALL_QUEUES, True), 120)
        cid = g.holdings()["java2"]["client_id"]
        g.procs.spawn("hog", java(args.java_cp, "LockHogMain", args.namesrv, g.group, g.topic, 0, g.dir, log_root=g.dir / "logs"))
        g.procs.freeze("java2")
        print("  stuck: java2 frozen; the hog asks for queue 0's lock every 500 ms", flush=True)
        frozen = time.monotonic()
        granted = g.dir / "hog.granted"
        try:
            wait_for("the hog to be granted queue 0's lock (the broker's expiry is 60 s)", granted.exists, 150, every=0.2)
        finally:
            g.procs.thaw("java2")
        print(f"  stuck: the hog was granted queue 0 {time.monotonic() - frozen:.0f} s into the freeze; java2 thawed", flush=True)

        def stuck_exactly(code, out):
            kinds = [(f["kind"], queue_ids(f), f["clients"]) for f in out["findings"]]
            if kinds == [("orderly_lock_stuck", [0], [cid])]:
                return out["findings"][0]["detail"], ""
            return None, f"findings {kinds}"

        detail = poll(g, "orderly_lock_stuck on queue 0 alone", stuck_exactly, 120)
        print(f"  stuck: inspect names exactly queue 0: {detail}", flush=True)
        g.procs.terminate("hog", 30)
        ended = time.monotonic()
        poll(g, "the group healthy again", healthy_holding("java2", g, SMALL_QUEUES, True), HEAL_TIMEOUT)
        healed = time.monotonic() - ended
        print(f"  stuck: healthy {healed:.0f} s after the hog ended (its lock lapsed, java2's renewal took it)", flush=True)
        return {"healed_s": healed}
    finally:
        g.stop_all()


def run_idle(args):
    g = Group(args, "idle", "GID_IDLE", "IDLE")
    starved = [0, 1]
    try:
        g.start_go("go2", "ours", mode="hang")
        poll(g, "go2 holding all 4 queues", healthy_holding("go2", g, SMALL_QUEUES, False), 120, GO_OURS)
        cid = g.holdings()["go2"]["client_id"]
        cmd = java(
            args.java_cp, "ProducerMain", args.namesrv, g.topic, 0, 40 * len(starved), g.dir / "sent", ",".join(map(str, starved)), log_root=g.dir / "logs"
        )
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise SystemExit("idle: the producer failed:\n" + done.stdout + done.stderr)
        sent = time.monotonic()
        print(f"  idle: 40 messages sent to each of queues {starved}; go2's one consume goroutine hangs on the first", flush=True)
        seen, reads, nan = set(), 0, 0

        def idle_exactly(code, out):
            nonlocal reads, nan
            kinds = [(f["kind"], queue_ids(f), f["clients"]) for f in out["findings"]]
            if any(k == "running_info_unavailable" and "NaN" in f["detail"] for f, (k, _, _) in zip(out["findings"], kinds)):
                # The Go client cannot encode its statistics while a rate has one sample (about
                # 10 s after a topic's first messages): a true finding, and nothing else is read.
                nan += 1
                return None, "go2 could not encode its running info (NaN)"
            for kind, queues, clients in kinds:
                if kind != "not_pulled" or clients != [cid] or not set(queues) <= set(starved):
                    raise SystemExit(f"idle: inspect found what is not there: {kinds}")
                seen.update(queues)
                reads += 1
            if sorted(seen) == starved:
                return True, ""
            return None, f"not_pulled seen on {sorted(seen)} so far"

        poll(g, "not_pulled on queues 0 and 1", idle_exactly, 300, GO_OURS, every=3.0)
        print(
            f"  idle: inspect names not_pulled on exactly {starved} ({reads} findings over the reads), {time.monotonic() - sent:.0f} s after the send; "
            f"{nan} reads found go2's running info unavailable, the Go client's NaN named as the reason",
            flush=True,
        )
        return {"findings": reads}
    finally:
        g.stop_all()


SCENARIOS = {"revoke": run_revoke, "stuck": run_stuck, "idle": run_idle}


def main():
    parser = group_driver_args(__doc__)
    parser.add_argument("--only", nargs="+", choices=SCENARIOS, default=list(SCENARIOS), help="run only these scenarios")
    args = parser.parse_args()
    cluster = Cluster(args.java_cp, args.state, [("GO_REVOKE", REVOKE_QUEUES), ("LOCK_STUCK", SMALL_QUEUES), ("IDLE", SMALL_QUEUES)])
    results, failures = {}, {}

    def run(name, scenario):
        try:
            results[name] = scenario(args)
        except BaseException as e:  # a SystemExit names what failed; report every scenario's
            failures[name] = e

    try:
        args.namesrv = cluster.namesrv
        print(f"NameServer + Broker 5.3.3 (own process) at {args.namesrv}", flush=True)
        threads = [threading.Thread(target=run, args=(n, SCENARIOS[n]), name=n) for n in args.only]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        cluster.stop()
    if failures:
        raise scenario_failures(failures)
    if len(results) < len(SCENARIOS):
        print(f"scenarios passed: {sorted(results)}")
        return
    r, s, i = results["revoke"], results["stuck"], results["idle"]
    print(
        f"inspect liveness e2e: revoke orphaned {r['orphaned']} named exactly, healed after {r['healed_s']:.0f} s | "
        f"stuck lock named exactly, healed {s['healed_s']:.0f} s after its holder ended | idle not_pulled on exactly 2 queues ({i['findings']} findings)"
    )


if __name__ == "__main__":
    main()
