#!/usr/bin/env python3
"""`rmq-rebalance inspect` on the 4.x line: a RocketMQ 4.9.7 NameServer, Broker and clients
(tests/e2e/java49, one process, Cluster49Main), whose answers are fastjson 1.x's, not the 5.x
brokers' and clients' of every other real-cluster test.

Driven by tests/e2e/run/broker49.sh. Three groups, each checked against what its consumers wrote
(<name>.held.json: each one's own allocation, the ground truth):
  GID_49_OK       two consumers on Java's AVG: healthy (exit 0), each client's holdings decoded as
                  it wrote them, both strategies read from the clients' own properties (`stated`);
  GID_49_MIXED    AVG beside AVG_BY_CIRCLE: exactly the queues the two allocations leave to nobody
                  (orphaned) and give to both (double_held), and `mixed_strategies`;
  GID_49_ORDERLY  one orderly consumer: healthy, every queue held and its lock decoded as held.
Then RocketMQ's own admin client (DefaultMQAdminExt of rocketmq-tools 5.3.3, AdminOracleMain)
reads each group, and its decoding and inspect's must agree field by field (tests/e2e/checkers/oracle.py).
"""

import argparse
import json
import subprocess
import time
from pathlib import Path

from fixtures.harness import JVM_FLAGS, wait_for
from checkers.oracle import admin_read, differences

GROUPS = {"GID_49_OK": ("T49", ["c1", "c2"]), "GID_49_MIXED": ("T49M", ["c3", "c4"]), "GID_49_ORDERLY": ("T49", ["c5"])}
QUEUES = 8
TIMEOUT = 120.0  # a 4.9 client rebalances every 20 s; the first after a start may see part of the group


def inspect(args, group, topic):
    saved = Path(args.state) / f"{group}.snapshot.json"
    cmd = [args.rmq_rebalance, "inspect", "--namesrv", args.namesrv, "--group", group, "--topic", topic, "--json", "--save", str(saved)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if done.returncode == 2:
        return 2, done.stderr.strip(), None
    return done.returncode, json.loads(done.stdout), json.loads(saved.read_text())


def wrote(args, names):
    out = {}
    for n in names:
        try:
            out[n] = json.loads((Path(args.state) / f"{n}.held.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            pass
    return out


def judge(group, topic, names, code, out, snapshot, recs):
    """What is wrong with inspect's reading of `group` (empty: nothing), against the held files."""
    if len(recs) != len(names) or any(sorted(r["cids"]) != sorted(x["client_id"] for x in recs.values()) for r in recs.values()):
        return "the consumers do not all see the whole group yet"
    decoded = {
        c["client_id"]: sorted(h["queue"][2] for h in (c["running"] or {}).get("held", []) if h["queue"][0] == topic and not h["dropped"])
        for c in snapshot["clients"]
    }
    written = {r["client_id"]: sorted(r["queues"]) for r in recs.values()}
    if decoded != written:
        return f"decoded holdings {decoded}, written {written}"
    holders = {q: [n for n, r in recs.items() if q in r["queues"]] for q in range(QUEUES)}
    truth = {"orphaned": [q for q, h in holders.items() if not h], "double_held": [q for q, h in holders.items() if len(h) > 1]}
    found = {k: sorted(int(q.rsplit(":", 1)[1]) for f in out["findings"] if f["kind"] == k for q in f["queues"]) for k in truth}
    if found != truth:
        return f"inspect found {found}, the consumers' files say {truth}"
    sources = {s["source"] for s in out["strategies"]}
    if sources != {"stated"}:
        return f"strategies not read from the clients' properties: {out['strategies']}"
    kinds = sorted({f["kind"] for f in out["findings"]})
    if group == "GID_49_MIXED":
        if kinds != ["double_held", "mixed_strategies", "orphaned"]:
            return f"findings {kinds}, expected double_held, mixed_strategies and orphaned"
    elif code != 0:
        return f"findings in a healthy group: {out['findings']}"
    if group == "GID_49_ORDERLY":
        locks = [h["locked"] for c in snapshot["clients"] for h in c["running"]["held"] if h["queue"][0] == topic]
        if len(locks) != QUEUES or not all(locks):
            return f"the orderly consumer's locks decoded as {locks}"
    return ""


def check_group(args, group):
    topic, names = GROUPS[group]
    start, why = time.monotonic(), "not run yet"
    while time.monotonic() - start < TIMEOUT:
        before = wrote(args, names)
        code, out, snapshot = inspect(args, group, topic)
        recs = wrote(args, names)
        if code == 2:
            why = f"inspect could not inspect: {out}"
        elif json.dumps(before) != json.dumps(recs):
            why = "the group moved while it was inspected"
        elif not (why := judge(group, topic, names, code, out, snapshot, recs)):
            found = ", ".join(f"{f['kind']} {','.join(q.rsplit(':', 1)[1] for q in f['queues'])}".strip() for f in out["findings"]) or "nothing"
            print(f"  {group}: {len(recs)} clients' holdings decoded as written; found {found}; exit {code}", flush=True)
            return
        time.sleep(2)
    raise SystemExit(f"inspect misread {group} on the 4.9.7 cluster: {why}")


def check_oracle(args, group):
    topic, _ = GROUPS[group]
    start, why = time.monotonic(), "not run yet"
    while time.monotonic() - start < TIMEOUT:
        code, _, ours = inspect(args, group, topic)
        if code == 2:
            why = "inspect could not inspect"
        else:
            theirs = admin_read(args.java_cp, args.namesrv, group, Path(args.state) / "logs")
            diff, compared = differences(ours, theirs)
            if not diff:
                print(f"  {group}: DefaultMQAdminExt 5.3.3 agrees on all {compared} fields compared", flush=True)
                return compared
            why = "; ".join(diff[:5])
        time.sleep(3)
    raise SystemExit(f"inspect's decoding and DefaultMQAdminExt's differ for {group} on the 4.9.7 cluster: {why}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cluster-cp", required=True, help="the classpath of tests/e2e/java49, built")
    p.add_argument("--java-cp", required=True, help="bindings/java's test classpath (AdminOracleMain)")
    p.add_argument("--rmq-rebalance", required=True, help="the CLI, built")
    p.add_argument("--state", required=True)
    args = p.parse_args()
    state = Path(args.state)
    log = open(state / "cluster49.log", "w")
    cmd = ["java", *JVM_FLAGS, "-Xmx512m", "-cp", args.cluster_cp, "io.github.rocketmqrebalance.cluster49.Cluster49Main", str(state)]
    cluster = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for("the 4.9.7 cluster to start (see cluster49.log)", lambda: (state / "ready").exists() or cluster.poll() is not None, 180)
        if cluster.poll() is not None:
            raise SystemExit(f"the 4.9.7 cluster exited with {cluster.returncode}; see {state / 'cluster49.log'}")
        args.namesrv = (state / "ready").read_text().strip()
        print(f"NameServer + Broker 4.9.7 and five 4.9.7 consumers (one process) at {args.namesrv}", flush=True)
        for group in GROUPS:
            check_group(args, group)
        compared = sum(check_oracle(args, group) for group in GROUPS)
    finally:
        cluster.terminate()
        try:
            cluster.wait(timeout=60)
        except subprocess.TimeoutExpired:
            cluster.kill()
    print(
        f"inspect 4.9.7 e2e: 3 groups judged as their consumers wrote, the mixed one's orphaned and double-held exactly; {compared} fields agree with DefaultMQAdminExt"
    )


if __name__ == "__main__":
    main()
