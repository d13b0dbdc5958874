#!/usr/bin/env python3
"""The shipped alert rules (deploy/prometheus/rmq-rebalance.rules.yml) in a real Prometheus,
scraping a real `rmq-rebalance watch` of a real NameServer and Broker, while groups go wrong in
known ways, one alert each; Prometheus's own HTTP API says which alerts fire.

Driven by tests/e2e/run/alerts.sh. `watch` runs 3 s rounds; Prometheus scrapes it and evaluates the
rules every 3 s. The rules are written for 30 s rounds, so each `for` is loaded scaled by 3/30
(10m becomes 60s), never below 20 s, the clients' own rebalance interval, which does not scale
(30s becomes 20s; scripts/lib/scale_rules.py says why): the only change made to them. Eleven groups, each on its own topic,
side by side, then the whole cluster frozen:

  orphan   a Go orderly consumer holds all 16 queues; a Java orderly one joins. The Go client gives
           up the Java member's share without unlocking it, and Java takes a queue only once the
           broker grants its lock: nobody consumes that share until Go's locks lapse (at least 40 s),
           while messages are sent to the topic from before the join on. Expected: RocketMQQueueOrphaned.
  double   two Java processes with one instance name, so one client id: both compute the same share
           over the same member list and take it, every queue consumed twice.
           Expected: RocketMQQueueDoubleHeld.
  down     two Java consumers; one is frozen (SIGSTOP) while messages keep coming. The broker keeps
           it listed (until its channel expires after 120 s), its queues are consumed by nobody.
           Expected: RocketMQQueueMemberDown.
  slow     one Java consumer whose listener takes 5 s a message on one thread; 12,000 messages
           sent at once, so most queues see no commit over a window (STALL). Ownership is sound,
           the lag is the consumer's: the lag alert and no other.
           Expected: RocketMQConsumerSlow.
  gone     a Java consumer consumes, then shuts down; 300 messages are sent after it left.
           Expected: RocketMQGroupOffline.
  roll     two Java consumers through a rolling restart as a deployment does it (a new instance
           starts, the group settles, an old one shuts down, twice) while a producer keeps sending.
           Expected: nothing.
  idle     a Go consumer whose one consume goroutine hangs in its listener; 40 messages to each of
           queues 0 and 1 fill their hand-over channels and block those queues' pull loops (the
           inspect liveness e2e's `idle`). Expected: RocketMQQueueNotPulled.
  disagree two Go consumers on rocketmq-client-go's own consistent hash, which `watch` is told runs
           Java's (--strategy-of, as for the Go consumers on ours): each queue held once, but many
           by the member Java's hash does not name. Expected: RocketMQOwnershipDisagrees.
  rewind   a Java consumer that has consumed a batch; another process (StaleCommitMain) keeps
           committing offset 0 for queue 0, as a member that lost the queue and still commits.
           Expected: RocketMQQueueRewind.
  flap     a Java consumer, and a second one in a crash loop: started, killed (SIGKILL) once it
           holds its share, started again, each time under a client id that sorts first so that it
           takes the same queues. Expected: RocketMQQueueFlapping.
  unread   once every scenario above has ended, the NameServer and Broker frozen (SIGSTOP): `watch`
           cannot read any group. Expected, for the rolled group (all consumed, so nothing else):
           RocketMQWatchCannotRead.

Checked: each group's expected alert fires (waited for with a generous bound), and the alerts that
fired for it while its scenario ran (Prometheus's ALERTS series over that span, so none is missed
between polls) are exactly the expected ones; no alert fires for any other group. How many rounds each alert took from its fault is
printed, never asserted. Then `promtool test rules` on the series recorded here: each alert within 2
rounds of its condition (plus its `for`), none for the rolled group (tests/e2e/drivers/alert_record.py).
"""

import json
import math
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from drivers.alert_record import CLIENT_REBALANCE, scaled_rules, scenario_test, write_and_test
from drivers.inspect_liveness import GO_OURS, healthy_holding, poll
from drivers.watch import Watch
from fixtures.harness import Cluster, Processes, java, scenario_failures, wait_for
from fixtures.push_group import QUEUES, Group, group_driver_args

INTERVAL = 3  # s: watch's rounds, Prometheus's scrapes and rule evaluations
RECORDED = Path("deploy/prometheus/tests/recorded.test.json")
FIRE_TIMEOUT = 240.0
SLOW_MESSAGES = 12000  # the slow consumer drains one every 5 s: above the rule's 10,000 for hours
EXPECTED = {
    "GID_ALERT_ORPHAN": {"RocketMQQueueOrphaned"},
    "GID_ALERT_DOUBLE": {"RocketMQQueueDoubleHeld"},
    "GID_ALERT_DOWN": {"RocketMQQueueMemberDown"},
    "GID_ALERT_SLOW": {"RocketMQConsumerSlow"},
    "GID_ALERT_GONE": {"RocketMQGroupOffline"},
    "GID_ALERT_ROLL": set(),
    "GID_ALERT_IDLE": {"RocketMQQueueNotPulled"},
    "GID_ALERT_DISAGREE": {"RocketMQOwnershipDisagrees"},
    "GID_ALERT_REWIND": {"RocketMQQueueRewind"},
    "GID_ALERT_FLAP": {"RocketMQQueueFlapping"},
    "GID_ALERT_LOCKWAIT": {"RocketMQOrderlyLockWait"},
}
# The frozen cluster is judged on the rolled group: it ended with nothing waiting and no member.
UNREAD_GROUP, UNREAD_ALERT = "GID_ALERT_ROLL", "RocketMQWatchCannotRead"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prometheus:
    """A Prometheus from Debian's package scraping `watch`, with the shipped rules scaled."""

    def __init__(self, binary, state, target):
        self.dir = Path(state) / "prometheus"
        self.procs = Processes(self.dir)
        self.rules = self.dir / "rules.yml"
        self.rules.write_text(scaled_rules(INTERVAL))
        config = self.dir / "prometheus.yml"
        config.write_text(
            f"global: {{scrape_interval: {INTERVAL}s, evaluation_interval: {INTERVAL}s}}\n"
            f"rule_files: [{json.dumps(str(self.rules))}]\n"
            f"scrape_configs:\n  - job_name: rmq-rebalance\n    static_configs: [{{targets: [{json.dumps(target)}]}}]\n"
        )
        self.addr = f"127.0.0.1:{free_port()}"
        cmd = [binary, f"--config.file={config}", f"--storage.tsdb.path={self.dir / 'data'}", f"--web.listen-address={self.addr}"]
        self.procs.spawn("prometheus", cmd)
        self.started = time.time()
        wait_for("Prometheus to be ready (see prometheus/prometheus.log)", self.ready, 60, self.procs)

    def ready(self):
        try:
            with urllib.request.urlopen(f"http://{self.addr}/-/ready", timeout=5) as r:
                return r.status == 200
        except OSError:
            return False

    def api(self, path, **params):
        url = f"http://{self.addr}/api/v1/{path}" + ("?" + urllib.parse.urlencode(params) if params else "")
        with urllib.request.urlopen(url, timeout=30) as r:
            body = json.load(r)
        if body.get("status") != "success":
            raise SystemExit(f"Prometheus refused {url}: {body}")
        return body["data"]

    def firing(self, group):
        """{alert name: the time it became active (s since the epoch)} firing now for group."""
        out = {}
        for a in self.api("alerts")["alerts"]:
            if a["state"] == "firing" and a["labels"].get("consumer_group") == group:
                out[a["labels"]["alertname"]] = a["activeAt"]
        return out

    def fired_since(self, since, until=None):
        """{group: alert names} of every alert that fired at any evaluation from `since` to `until`
        (s since the epoch; now by default): read from Prometheus's own ALERTS series, so none is
        missed between polls."""
        until = time.time() if until is None else until
        span = math.ceil(until - since) + INTERVAL
        data = self.api("query", query=f'max_over_time(ALERTS{{alertstate="firing"}}[{span}s])', time=until)
        out = {}
        for r in data["result"]:
            out.setdefault(r["metric"].get("consumer_group", ""), set()).add(r["metric"]["alertname"])
        return out

    def rules_loaded(self):
        return sum(len(g["rules"]) for g in self.api("rules")["groups"])


# When each scenario began stopping its group's consumers: its span ends there. Stopping them is not
# the fault tested, and what it shows is true (the queues the last member gave up are held by
# nobody while messages wait: RocketMQQueueOrphaned once that lasts its `for`).
TEARDOWN = {}


class ScenarioGroup(Group):
    def __exit__(self, *exc):
        TEARDOWN[self.dir.name] = time.time()
        super().__exit__(*exc)


def scenario_group(args, name):
    """The group of scenario `name`: GID_ALERT_<NAME> on topic ALERT_<NAME>, stopped on leaving."""
    return ScenarioGroup(args, name, f"GID_ALERT_{name.upper()}", f"ALERT_{name.upper()}")


def wait_fired(prom, group, alert, fault_at):
    """Waits for alert to fire for group; returns the rounds from the fault to firing, as seen."""
    found = {}

    def fired():
        found.update(prom.firing(group))
        return alert in found

    wait_for(f"{alert} to fire for {group}", fired, FIRE_TIMEOUT, every=1.0)
    return (time.time() - fault_at) / INTERVAL


@contextmanager
def sending(g):
    """Batches of messages to g's topic, one after another, until the block ends; a producer's
    failure is raised there."""
    stop, failed = threading.Event(), []

    def keep_sending():
        try:
            while not stop.is_set():
                g.produce()
        except BaseException as e:  # a SystemExit names the producer's failure
            failed.append(e)

    sender = threading.Thread(target=keep_sending)
    sender.start()
    try:
        yield
    finally:
        stop.set()
        sender.join()
    if failed:
        raise failed[0]


def send_at_once(args, g, count, *queues):
    """count messages to g's topic in one producer run, to the given queue ids only if any."""
    only = [",".join(map(str, queues))] if queues else []
    cmd = java(args.java_cp, "ProducerMain", args.namesrv, g.topic, 0, count, g.dir / "sent", *only, log_root=g.dir / "logs")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"{g.dir.name}: the producer failed:\n" + done.stdout + done.stderr)


def run_orphan(args, prom):
    with scenario_group(args, "orphan") as g:
        g.start_go("go1", "ours", mode="orderly")
        poll(g, "go1 holding and locking all 16 queues", healthy_holding("go1", g, QUEUES, True), 120, GO_OURS)
        # The alert pages once messages wait on the queues nobody consumes, for its `for`: they
        # are sent from before the join on (go1 consumes them until it gives the queues up), since
        # the queues stay orphaned only until go1's locks lapse, 40 to 60 s after the revoke.
        with sending(g):
            g.start_java("java1", "native", mode="orderly")
            wait_for("go1 and java1 to see each other", lambda: g.view()[0] and len(g.view()[2]) == 2, 120, g.procs)
            history = [json.loads(line) for line in (g.dir / "go1.held.log").read_text().splitlines()]
            revoked_ms = next(r["at_ms"] for r in history if len(r["cids"]) == 2)
            moved = len(g.holdings()["java1"]["queues"])
            rounds = wait_fired(prom, g.group, "RocketMQQueueOrphaned", revoked_ms / 1000)
        return f"go1 gave up {moved} queues without unlocking them, {g.sent} messages sent: RocketMQQueueOrphaned {rounds:.1f} rounds after"


def run_double(args, prom):
    with scenario_group(args, "double") as g:
        g.start_java("dup1", "native", instance="dup")
        wait_for("dup1 to hold every queue", lambda: len(g.holdings().get("dup1", {}).get("queues", [])) == QUEUES, 120, g.procs)
        g.start_java("dup2", "native", instance="dup")
        wait_for("dup2 to hold every queue too", lambda: len(g.holdings().get("dup2", {}).get("queues", [])) == QUEUES, 120, g.procs)
        fault_at = time.time()
        ids = {r["client_id"] for r in g.holdings().values()}
        rounds = wait_fired(prom, g.group, "RocketMQQueueDoubleHeld", fault_at)
        return f"two processes as {sorted(ids)}, each holding all {QUEUES} queues: RocketMQQueueDoubleHeld {rounds:.1f} rounds after"


def run_down(args, prom):
    with scenario_group(args, "down") as g:
        g.start_java("java2", "native")
        g.start_java("java3", "native")
        g.settle("java2 and java3")
        held = len(g.holdings()["java3"]["queues"])
        fault_at = time.time()
        g.procs.freeze("java3")
        try:
            # Messages keep coming (to every queue), so that the frozen member's queues stop committing.
            with sending(g):
                rounds = wait_fired(prom, g.group, "RocketMQQueueMemberDown", fault_at)
        finally:
            g.procs.thaw("java3")
        return f"java3 frozen holding {held} queues while {g.sent} messages were sent: RocketMQQueueMemberDown {rounds:.1f} rounds after"


def run_slow(args, prom):
    with scenario_group(args, "slow") as g:
        g.start_java("slow1", "native", mode="slow")
        g.settle("slow1 alone")
        send_at_once(args, g, SLOW_MESSAGES)
        rounds = wait_fired(prom, g.group, "RocketMQConsumerSlow", time.time())
        return f"{SLOW_MESSAGES} messages to a listener taking 5 s each: RocketMQConsumerSlow {rounds:.1f} rounds after the send"


def run_gone(args, prom):
    with scenario_group(args, "gone") as g:
        g.start_java("java4", "native")
        g.settle("java4 alone")
        g.produce()
        g.wait_consumed(FIRE_TIMEOUT)
        g.stop("java4")
        g.produce()
        rounds = wait_fired(prom, g.group, "RocketMQGroupOffline", time.time())
        return f"its only consumer left, {g.sent // 2} messages sent after: RocketMQGroupOffline {rounds:.1f} rounds after"


def run_roll(args, prom):
    with scenario_group(args, "roll") as g:
        g.start_java("old1", "native")
        g.start_java("old2", "native")
        g.settle("old1 and old2")
        # Each replaced by a new one while messages flow.
        with sending(g):
            for old, new in (("old1", "new1"), ("old2", "new2")):
                g.start_java(new, "native")
                g.settle(f"{new} started")
                g.stop(old)
                g.settle(f"{old} shut down")
        g.wait_consumed(FIRE_TIMEOUT)
        # Alerts need `for` to pass (at least CLIENT_REBALANCE, scaled): a fault the restart made
        # would have fired by now, two rounds on.
        time.sleep(CLIENT_REBALANCE + 2 * INTERVAL)
        firing = prom.firing(g.group)
        if firing:
            raise SystemExit(f"roll: alerts fire for a group rolled cleanly: {sorted(firing)}")
        return f"two consumers replaced one by one while {g.sent} messages were sent, all consumed: no alert"


def run_idle(args, prom):
    with scenario_group(args, "idle") as g:
        g.start_go("go2", "ours", mode="hang")
        poll(g, "go2 holding every queue", healthy_holding("go2", g, QUEUES, False), 120, GO_OURS)
        starved = [0, 1]
        send_at_once(args, g, 40 * len(starved), *starved)
        # The rule's own clock: a queue is not_pulled once its last pull is 60 s old, then `for`.
        rounds = wait_fired(prom, g.group, "RocketMQQueueNotPulled", time.time())
        return f"go2's listener hung with 40 messages on each of queues {starved}: RocketMQQueueNotPulled {rounds:.1f} rounds after the send"


def run_disagree(args, prom):
    with scenario_group(args, "disagree") as g:
        g.start_go("goc1", "goclient")
        g.start_go("goc2", "goclient")
        g.settle("goc1 and goc2")
        fault_at = time.time()
        rounds = wait_fired(prom, g.group, "RocketMQOwnershipDisagrees", fault_at)
        return f"two Go consumers on rocketmq-client-go's consistent hash, watched as Java's: RocketMQOwnershipDisagrees {rounds:.1f} rounds after they settled"


def run_rewind(args, prom):
    with scenario_group(args, "rewind") as g:
        g.start_java("java7", "native")
        g.settle("java7 alone")
        g.produce()
        g.wait_consumed(FIRE_TIMEOUT)
        g.procs.spawn("stale", java(args.java_cp, "StaleCommitMain", args.namesrv, g.group, g.topic, 0, 0, g.dir, log_root=g.dir / "logs"))
        began = g.dir / "stale.began"
        wait_for("the broker to take the stale commit", began.exists, 120, every=0.2)
        rounds = wait_fired(prom, g.group, "RocketMQQueueRewind", int(began.read_text()) / 1000)
        return f"offset 0 committed again and again for queue 0 after {g.sent} messages were consumed: RocketMQQueueRewind {rounds:.1f} rounds after the first"


def run_flap(args, prom):
    with scenario_group(args, "flap") as g:
        # Client ids sort by instance name: the crashing one ("a-...") is always first, so under
        # AVG it takes queues 0-7 each time, and those change owner twice a cycle.
        g.start_java("steady", "native", instance="b-steady")
        g.settle("steady alone")
        fault_at, stop, failed, cycles = time.time(), threading.Event(), [], [0]

        def crash_loop():
            try:
                while not stop.is_set():
                    cycles[0] += 1
                    name = f"crash{cycles[0]}"
                    g.start_java(name, "native", instance=f"a-crash{cycles[0]}")
                    wait_for(f"{name} to take its share", lambda n=name: g.holdings().get(n, {}).get("queues"), 120, g.procs)
                    time.sleep(INTERVAL + 1)  # a round of `watch` sees it
                    g.procs.kill(name)
                    wait_for("steady to take every queue back", lambda: len(g.holdings()["steady"]["queues"]) == QUEUES, 120, g.procs)
                    time.sleep(INTERVAL + 1)
            except BaseException as e:  # a SystemExit names what failed
                failed.append(e)

        looping = threading.Thread(target=crash_loop)
        looping.start()
        try:
            rounds = wait_fired(prom, g.group, "RocketMQQueueFlapping", fault_at)
        finally:
            stop.set()
            looping.join()
        if failed:
            raise failed[0]
        return f"a member started and killed {cycles[0]} times: RocketMQQueueFlapping {rounds:.1f} rounds after the first start"


def run_lockwait(args, prom):
    with scenario_group(args, "lockwait") as g:
        g.start_java("java8", "native", mode="orderly")
        g.settle("java8 alone")
        victim = g.holdings()["java8"]["client_id"]
        hog = java(args.java_cp, "LockHogMain", args.namesrv, g.group, g.topic, 0, g.dir, victim, log_root=g.dir / "logs")
        # Messages keep coming, so that the queue's wait shows as lag too (stuck_lag).
        with sending(g):
            g.procs.spawn("hog", hog)
            granted = g.dir / "hog.granted"
            wait_for("the hog to be granted queue 0's lock", granted.exists, 120, g.procs, every=0.2)
            # The consumer learns it at its next lock renewal (every 20 s), then the rule's `for`.
            rounds = wait_fired(prom, g.group, "RocketMQOrderlyLockWait", int(granted.read_text()) / 1000)
            # Ended before the group: once the lock lapses java8 takes it back, and its own shutdown
            # is not this scenario's fault.
            g.procs.terminate("hog", 30)
        return f"queue 0's lock taken from java8 by another client, {g.sent} messages sent: RocketMQOrderlyLockWait {rounds:.1f} rounds after the grant"


def run_unread(cluster, prom):
    """The cluster frozen once the scenarios are over: (rounds to the alert, the span)."""
    began = time.time()
    cluster.proc.send_signal(signal.SIGSTOP)
    try:
        rounds = wait_fired(prom, UNREAD_GROUP, UNREAD_ALERT, began)
    finally:
        cluster.proc.send_signal(signal.SIGCONT)
    return rounds, (began, time.time())


SCENARIOS = {
    "orphan": run_orphan,
    "double": run_double,
    "down": run_down,
    "slow": run_slow,
    "gone": run_gone,
    "roll": run_roll,
    "idle": run_idle,
    "disagree": run_disagree,
    "rewind": run_rewind,
    "flap": run_flap,
    "lockwait": run_lockwait,
}


def main():
    parser = group_driver_args(__doc__)
    parser.add_argument("--prometheus", required=True, help="the folder holding Debian's prometheus binary")
    parser.add_argument("--record", action="store_true", help=f"also write the promtool test made from this run to {RECORDED}")
    parser.add_argument("--only", nargs="+", choices=SCENARIOS, default=list(SCENARIOS), help="run only these scenarios")
    args = parser.parse_args()
    topics = [("ALERT_" + name.upper(), QUEUES) for name in SCENARIOS]
    cluster = Cluster(args.java_cp, args.state, topics)
    w = prom = None
    results, failures, fired, spans = {}, {}, {}, {}

    def run(name):
        try:
            began = time.time()
            results[name] = SCENARIOS[name](args, prom)
            spans[name] = (began, TEARDOWN.get(name, time.time()))
            # Its span only, up to the teardown (TEARDOWN above).
            fired[name] = prom.fired_since(*spans[name]).get(f"GID_ALERT_{name.upper()}", set())
        except BaseException as e:  # a SystemExit names what failed; report every scenario's
            failures[name] = e

    try:
        args.namesrv = cluster.namesrv
        print(f"NameServer + Broker 5.3.3 (own process) at {args.namesrv}", flush=True)
        w = Watch(args, args.state, interval=f"{INTERVAL}s", extra=["--strategy-of", GO_OURS])
        prom = Prometheus(str(Path(args.prometheus) / "prometheus"), args.state, w.addr)
        print(
            f"watch at {w.addr}; Prometheus at {prom.addr} with {prom.rules_loaded()} rules, each `for` scaled by {INTERVAL}/30, at least {CLIENT_REBALANCE} s",
            flush=True,
        )
        threads = [threading.Thread(target=run, args=(n,), name=n) for n in args.only]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for name in args.only:
            if name in results:
                print(f"  {name}: {results[name]}", flush=True)
        if failures:
            raise scenario_failures(failures)
        expected = {n: EXPECTED[f"GID_ALERT_{n.upper()}"] for n in args.only}
        wrong = {n: (sorted(fired[n]), sorted(want)) for n, want in expected.items() if fired[n] != want}
        strays = {g: sorted(a) for g, a in prom.fired_since(prom.started).items() if not g.startswith("GID_ALERT_")}
        if wrong or strays:
            raise SystemExit(f"alerts that fired in a scenario (fired, expected): {wrong}; for no group of the test: {strays}")
        tests = [scenario_test(prom, n, f"GID_ALERT_{n.upper()}", *spans[n], expected[n], prom.rules.read_text(), INTERVAL) for n in args.only]
        if UNREAD_GROUP in (f"GID_ALERT_{n.upper()}" for n in args.only):
            rounds, span = run_unread(cluster, prom)
            fired_unread = prom.fired_since(*span).get(UNREAD_GROUP, set())
            if fired_unread != {UNREAD_ALERT}:
                raise SystemExit(f"unread: with the cluster frozen, {UNREAD_GROUP} fired {sorted(fired_unread)}, expected only {UNREAD_ALERT}")
            print(f"  unread: NameServer and Broker frozen: {UNREAD_ALERT} {rounds:.1f} rounds after", flush=True)
            tests.append(scenario_test(prom, "unread", UNREAD_GROUP, *span, {UNREAD_ALERT}, prom.rules.read_text(), INTERVAL))
        print("  " + write_and_test(str(Path(args.prometheus) / "promtool"), prom.dir / RECORDED.name, tests, prom.rules, INTERVAL), flush=True)
        if args.record:
            shutil.copy(prom.dir / RECORDED.name, RECORDED)
            print(f"  recorded into {RECORDED}", flush=True)
        print(
            f"alerts e2e: in each scenario exactly the expected alerts fired, group by group: {json.dumps({g: sorted(a) for g, a in expected.items()})}",
            flush=True,
        )
    finally:
        for p in (prom, w):
            if p is not None:
                p.procs.stop_all()
        cluster.stop()


if __name__ == "__main__":
    main()
