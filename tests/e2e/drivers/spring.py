#!/usr/bin/env python3
"""A Spring Boot application in one consumer group with a plain Java consumer and a Go consumer,
on a real NameServer and Broker.

Driven by tests/e2e/run/spring.sh, which builds examples/spring-boot once per Spring Boot version
and passes each class path. The application's listener is an ordinary rocketmq-spring
@RocketMQMessageListener; its strategy comes from application.properties alone
(rocketmq.rebalance.strategy=consistent_hash), applied by rocketmq-rebalance-spring-boot-starter.

  ours     per Spring Boot version: the application, a Java consumer on
           NativeAllocateMessageQueueConsistentHash(10) and a Go consumer on
           rmqrebalance.ConsistentHash(10). The group must settle with every queue held exactly
           once (by what each consumer actually holds), inspect must find nothing and know every
           member's strategy (the application's from its running info), and every message sent
           must be consumed. Any failure fails the script.
  control  the same application with stock.properties (the properties removed): it must run
           rocketmq-spring's AllocateMessageQueueAveragely, and inspect must report
           mixed_strategies; the queues it leaves with no owner or two are counted and reported.
  safe-orderly  the application's orderly listener with safe-orderly=true, on SafeOrderlyConsumer:
           two instances, a third joins, the first leaves; inspect, reading each instance's
           running info (answered by the engine), must find every queue held once and nothing
           wrong each time, and every message must be consumed. Order violations within a process
           are counted and reported.
"""

import time

from fixtures.harness import JVM_FLAGS, Cluster
from fixtures.push_group import OURS_STRATEGIES, QUEUES, Group, group_driver_args


class SpringGroup(Group):
    """A group that may also hold instances of the Spring Boot example application."""

    def start_spring(self, name, classpath, config, extra=()):
        cmd = [
            "java",
            *JVM_FLAGS,
            "-Xmx256m",
            "-cp",
            classpath,
            "example.spring.ExampleApplication",
            f"--spring.config.name={config}",
            f"--rocketmq.name-server={self.args.namesrv}",
            f"--example.group={self.group}",
            f"--example.topic={self.topic}",
            f"--example.name={name}",
            f"--example.state-dir={self.dir}",
            *extra,
        ]
        self._spawn(name, cmd, f"Spring Boot, {config}.properties")


def redraw_share(g, app, java, tries=5):
    """Consistent hash places each member's 10 points on its ring by the hash of its client id, and
    the ids carry process ids: now and then the application's id gets none of the 16 queues (a CI
    run saw it; 11 of 4,000 random draws of three such ids, by `rmq-rebalance allocate`), and the
    run then proves nothing about its listener. The Java member is replaced (a new process, a new
    id, new points) until the application has a share, at most `tries` times."""
    for n in range(2, 2 + tries):
        if g.holdings()[app]["queues"]:
            return
        print(f"  the ring gave {app} no queue; {java} replaced to draw it again", flush=True)
        g.stop(java)
        java = f"java{n}"
        g.start_java(java, "native")
        g.settle(f"{app} + {java} + Go")
    if not g.holdings()[app]["queues"]:
        raise SystemExit(f"the ring gave {app} no queue {tries + 1} times over")


def run_ours(args, boot, classpath, n):
    print(f"-- ours on Spring Boot {boot}: the application (rocketmq.rebalance.strategy=consistent_hash) + Java native + Go ours", flush=True)
    g = SpringGroup(args, f"boot-{boot}", f"GID_SPRING_{n}", f"SPRING_{n}")
    try:
        g.start_spring("spring", classpath, "application")
        g.start_java("java1", "native")
        g.start_go("go1", "ours")
        g.settle("Spring + Java + Go")
        redraw_share(g, "spring", "java1")
        strategy = g.holdings()["spring"]["strategy"]
        # The starter builds it through the core's configuration parser (NativeStrategy.fromConfig).
        if not strategy.startswith("io.github.rocketmqrebalance.") or '@consistent_hash{"virtual_node_count":10}' not in strategy:
            raise SystemExit(f"the application's consumer allocates with {strategy}")
        print(f"  the application's consumer allocates with {strategy}", flush=True)
        print(f"  {g.inspect_agrees(True, *OURS_STRATEGIES)}", flush=True)
        g.produce()
        g.wait_consumed(timeout=180)
        sent, seen, deliveries = g.consumption()
        lost = len(sent - seen)
        by_spring = len(set((g.dir / "spring.consumed").read_text().split())) if (g.dir / "spring.consumed").exists() else 0
        print(f"  consumed {len(sent & seen)} of {len(sent)} sent, {by_spring} of them by the application", flush=True)
        if lost:
            raise SystemExit(f"{lost} messages were never consumed")
        if not by_spring:
            raise SystemExit("the application consumed nothing")
        return len(sent)
    finally:
        g.stop_all()


def order_violations(g):
    """Within each process's <name>.order, a queue's bodies must rise (one producer sent them in
    order): (violations, lines read)."""
    bad = lines = 0
    for f in g.dir.glob("*.order"):
        last = {}
        for line in f.read_text().splitlines():
            q, body = line.split()
            n = int(body.split("-")[1])
            lines += 1
            if n <= last.get(q, -1):
                bad += 1
            last[q] = n
    return bad, lines


def inspect_healthy(g, clients, timeout=120.0):
    """Until inspect sees `clients` members, finds nothing, and every queue is held once, from the
    SafeOrderlyConsumers' own running info (their engine's held queues and strategy): its one-line
    account."""
    start, why = time.monotonic(), "not run yet"
    while time.monotonic() - start < timeout:
        g.procs.check_alive()
        code, out, snapshot = g.inspect()
        members = len(snapshot["clients"]) if code != 2 else 0
        if code == 0 and members == clients and out["queues"] and all(len(r["holders"]) == 1 for r in out["queues"]):
            stated = sorted({s["strategy"] for s in out["strategies"]} | {s["source"] for s in out["strategies"]})
            return f"inspect: {len(out['queues'])} queues each held once by {len(snapshot['clients'])} clients, nothing found ({', '.join(stated)})"
        why = f"exit {code}, {members} members: {[f['kind'] for f in out.get('findings', [])] if code != 2 else out}"
        time.sleep(3)
    raise SystemExit(f"the SafeOrderlyConsumer group did not become healthy within {timeout:.0f} s: {why}")


def run_safe_orderly(args, boot, classpath):
    print(
        f"-- safe-orderly on Spring Boot {boot}: an orderly listener with rocketmq.rebalance.groups.<group>.safe-orderly=true, two instances, a join, a leave",
        flush=True,
    )
    g = SpringGroup(args, "safe-orderly", "GID_SPRING_ORDERLY", "SPRING_ORDERLY")
    extra = ("--example.listener=orderly", f"--rocketmq.rebalance.groups.{g.group}.safe-orderly=true")
    try:
        g.start_spring("spring1", classpath, "application", extra)
        g.start_spring("spring2", classpath, "application", extra)
        print(f"  {inspect_healthy(g, 2)}", flush=True)
        g.produce()
        g.start_spring("spring3", classpath, "application", extra)
        g.wait_consumed(timeout=180)
        print(f"  {inspect_healthy(g, 3)} (spring3 joined)", flush=True)
        g.stop("spring1")
        g.produce()
        g.wait_consumed(timeout=180)
        print(f"  {inspect_healthy(g, 2)} (spring1 left)", flush=True)
        sent, seen, deliveries = g.consumption()
        lost = len(sent - seen)
        bad, lines = order_violations(g)
        print(
            f"  consumed {len(sent & seen)} of {len(sent)} sent, {deliveries - len(seen)} delivered again; {bad} order violations in {lines} calls", flush=True
        )
        if lost:
            raise SystemExit(f"{lost} messages were never consumed")
        return len(sent), deliveries - len(seen), bad
    finally:
        g.stop_all()


def run_control(args, boot, classpath):
    print(f"-- control on Spring Boot {boot}: the same application with stock.properties (no rocketmq.rebalance.*) + Java native + Go ours", flush=True)
    g = SpringGroup(args, "control", "GID_SPRING_STOCK", "SPRING_STOCK")
    try:
        g.start_spring("spring", classpath, "stock")
        g.start_java("java1", "native")
        g.start_go("go1", "ours")
        g.wait_for_group(extra=25)
        recs = g.holdings()
        if not recs["spring"]["strategy"].startswith("org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely"):
            raise SystemExit(f"without the properties the application allocates with {recs['spring']['strategy']}")
        _, holders, _ = g.view()
        unowned = sorted(q for q, h in holders.items() if not h)
        double = sorted(q for q, h in holders.items() if len(h) > 1)
        code, out, _ = g.inspect(*OURS_STRATEGIES)
        kinds = sorted({f["kind"] for f in out.get("findings", [])}) if code != 2 else []
        if "mixed_strategies" not in kinds:
            raise SystemExit(f"inspect did not report mixed_strategies for the stock application (exit {code}): {kinds}")
        print(f"  the application allocates with rocketmq-spring's AVG; queues with no owner {unowned}, with two {double}; inspect: {kinds}", flush=True)
        return len(unowned), len(double)
    finally:
        g.stop_all()


def main():
    p = group_driver_args(__doc__)
    p.add_argument(
        "--boot", nargs=2, action="append", metavar=("VERSION", "CLASSPATH"), required=True, help="a Spring Boot version and the example's class path on it"
    )
    args = p.parse_args()
    topics = [(f"SPRING_{n}", QUEUES) for n in range(len(args.boot))] + [("SPRING_STOCK", QUEUES), ("SPRING_ORDERLY", QUEUES)]
    cluster = Cluster(args.java_cp, args.state, topics)
    rows = []
    try:
        args.namesrv = cluster.namesrv
        print(f"NameServer + Broker 5.3.3 (own process) at {args.namesrv}", flush=True)
        for n, (boot, classpath) in enumerate(args.boot):
            rows.append((boot, run_ours(args, boot, classpath, n)))
        unowned, double = run_control(args, *args.boot[0])
        safe_sent, safe_again, safe_bad = run_safe_orderly(args, *args.boot[-1])
    finally:
        cluster.stop()
    print()
    print(f"| Spring Boot app + Java + Go consumers, one group, {QUEUES} queues | queues with no owner, settled | with two owners, settled | messages lost |")
    print("|---|---|---|---|")
    for boot, sent in rows:
        print(f"| Spring Boot {boot}, rocketmq.rebalance.strategy=consistent_hash | 0 | 0 | 0 of {sent} |")
    print(f"| Spring Boot {args.boot[0][0]}, properties removed (rocketmq-spring's AVG) | {unowned} | {double} | none sent |")
    print(
        f"| Spring Boot {args.boot[-1][0]}, an orderly listener on SafeOrderlyConsumer (safe-orderly=true), 2 instances, a join, a leave "
        f"| 0 | 0 | 0 of {safe_sent} ({safe_again} delivered again, {safe_bad} order violations) |"
    )
    print(f"spring e2e: {len(rows)} Spring Boot versions settled with every queue held once and nothing lost | stock: unowned {unowned}, double {double}")


if __name__ == "__main__":
    main()
