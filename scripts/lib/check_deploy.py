"""Checks deploy/ with the real tools: promtool reads the metrics `watch` serves (0 findings), the
rules (clean), runs the rule tests recorded from the alert e2e (deploy/prometheus/tests/, against
the rules scaled to the 3 s rounds they were recorded at; every shipped alert must fire in one of
them) and the hand-written ones (causes.test.yml,
against the rules as shipped; scaled.test.yml, against the same scaled rules), and every expression of the Grafana dashboard and the KEDA example (each put into a
rules file of its own, which promtool parses); and every series an expression names is in the
metric contract (docs/watch.md's table, which a Rust test holds to the code) or a recording rule.

Usage: check_deploy.py PROMTOOL RMQ_REBALANCE
"""

import json
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

from scale_rules import scaled_rules

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy/prometheus/rmq-rebalance.rules.yml"
DASHBOARD = ROOT / "deploy/grafana/rmq-rebalance-watch.json"
KEDA = ROOT / "deploy/keda/scaledobject.yaml"
RECORDED = ROOT / "deploy/prometheus/tests/recorded.test.json"
RECORDED_INTERVAL = 3  # s: the alert e2e's rounds (tests/e2e/drivers/alerts.py)
HAND_WRITTEN = ROOT / "deploy/prometheus/tests/causes.test.yml"
HAND_WRITTEN_SCALED = ROOT / "deploy/prometheus/tests/scaled.test.yml"


def contract() -> set[str]:
    table = (ROOT / "docs/watch.md").read_text().split("<!-- contract -->")[1].split("<!-- /contract -->")[0]
    return set(re.findall(r"^\| `([a-z_]+)`", table, re.M))


def keda_query() -> str:
    lines = KEDA.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("query:"))
    indent = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for line in lines[start + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line.strip())
    return " ".join(body)


def expressions() -> list[tuple[str, str]]:
    out = [(f"rule {n}", e) for n, e in enumerate(re.findall(r"^\s+expr: (.+)$", RULES.read_text(), re.M))]
    for panel in json.loads(DASHBOARD.read_text())["panels"]:
        out += [(f"panel {panel['title']!r}", t["expr"]) for t in panel["targets"]]
    out.append(("the KEDA query", keda_query()))
    return out


def promtool(promtool_bin: str, *args: str, stdin: str | None = None) -> None:
    r = subprocess.run([promtool_bin, *args], input=stdin, capture_output=True, text=True)
    if r.returncode != 0 or (args[:2] == ("check", "metrics") and r.stdout.strip()):
        sys.exit(f"promtool {' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}")


def served_metrics(rmq: str) -> str:
    """What `watch --per-queue` serves for a group with every cause this snapshot can show."""
    held = lambda ids: [  # noqa: E731
        {"queue": ["T", "broker-a", i], "dropped": False, "locked": False, "last_lock_ms": 0, "last_pull_ms": 0} for i in ids
    ]
    props = {"allocateMessageQueueStrategy": "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely@1"}
    snapshot = {
        "group": 'G"odd\\name',
        "taken_at_ms": 0,
        "topics": {"T": [["T", "broker-a", i] for i in range(4)]},
        "brokers": [{"broker": "broker-a", "addr": "127.0.0.1:10911", "consumer_ids": ["a@1", "b@1"]}],
        "connections": [{"client_id": c, "client_addr": f"10.0.0.{n}:1", "language": "JAVA", "version": 479} for n, c in enumerate(["a@1", "b@1"])],
        "clients": [
            {"client_id": "a@1", "running": {"properties": props, "held": held([0, 1, 2])}},
            {"client_id": "b@1", "running": {"properties": props, "held": held([2])}},
        ],
        "offsets": [{"queue": ["T", "broker-a", i], "consumer_offset": 5, "broker_offset": 5 + 10 * i} for i in range(4)],
    }
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(snapshot, f)
    args = [rmq, "watch", "--load", f.name, "--per-queue", "--interval", "1s", "--listen", "127.0.0.1:0"]
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        addr = proc.stderr.readline().split("http://")[1].split("/")[0]
        # The window is judged from the third round on: wait for the fourth report.
        while not proc.stderr.readline().startswith("round 4:"):
            pass
        with urllib.request.urlopen(f"http://{addr}/metrics") as r:
            return r.read().decode()
    finally:
        proc.kill()
        proc.wait()
        Path(f.name).unlink()


def alerts_never_recorded(recorded: list[dict]) -> list[str]:
    """The shipped alerts that fire in no scenario recorded from the alert e2e."""
    fired = set()
    for test in recorded:
        for check in test["promql_expr_test"]:
            for sample in check.get("exp_samples", []):
                fired.update(re.findall(r'alertname="([^"]+)"', sample["labels"]))
    return sorted(set(re.findall(r"^\s+- alert: (\S+)$", RULES.read_text(), re.M)) - fired)


def main() -> None:
    promtool_bin, rmq = sys.argv[1], sys.argv[2]
    names = contract()
    records = set(re.findall(r"^\s+- record: (\S+)$", RULES.read_text(), re.M))
    exprs = expressions()
    for where, expr in exprs:
        for name in re.findall(r"\brmq_rebalance[a-z0-9_:]*", expr):
            if name not in names and name not in records:
                sys.exit(f"{where} names {name}, which is neither in docs/watch.md's contract nor a recording rule")
    promtool(promtool_bin, "check", "rules", str(RULES))
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        rules = [{"record": f"check:expr_{n}", "expr": e} for n, (_, e) in enumerate(exprs)]
        json.dump({"groups": [{"name": "every expression shipped", "rules": rules}]}, f)  # JSON is YAML
    try:
        promtool(promtool_bin, "check", "rules", f.name)
    finally:
        Path(f.name).unlink()
    # promtool evaluates a tick's rule groups in a random order unless a test names one, and an alert
    # on a recording then fires a round late in about half the runs: every test file pins the
    # rules file's own order.
    order = re.findall(r"^\s+- name: (\S+)$", RULES.read_text(), re.M)
    for test in (RECORDED, HAND_WRITTEN_SCALED, HAND_WRITTEN):
        text = test.read_text()
        pinned = json.loads(text).get("group_eval_order") if test.suffix == ".json" else re.findall(r"^group_eval_order: \[(.*)\]$", text, re.M)
        if test.suffix != ".json":
            pinned = [g.strip() for g in pinned[0].split(",")] if pinned else None
        if pinned != order:
            sys.exit(f"{test} must set group_eval_order to the rules file's groups in order, {order} (it has {pinned})")
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "rules.yml").write_text(scaled_rules(RECORDED_INTERVAL))
        for test in (RECORDED, HAND_WRITTEN_SCALED):
            shutil.copy(test, d)
            promtool(promtool_bin, "test", "rules", str(Path(d) / test.name))
    promtool(promtool_bin, "test", "rules", str(HAND_WRITTEN))
    recorded = json.loads(RECORDED.read_text())["tests"]
    unproven = alerts_never_recorded(recorded)
    if unproven:
        sys.exit(
            f"{RECORDED} has no scenario in which {', '.join(unproven)} fires: every shipped alert is proven on the real cluster (tests/e2e/drivers/alerts.py --record)"
        )
    text = served_metrics(rmq)
    for needed in ('status="STOP"', 'cause="orphaned"', "rmq_rebalance_queue_holder_info{"):
        if needed not in text:
            sys.exit(f"the served metrics lack {needed}:\n{text}")
    promtool(promtool_bin, "check", "metrics", stdin=text)
    checks = sum(len(t["promql_expr_test"]) for t in recorded)
    print(
        f"deploy/: {len(exprs)} expressions parse and name only contract series or recordings; rules clean; "
        f"recorded rule tests: {len(recorded)} scenarios, {checks} checks pass; {HAND_WRITTEN.name} and {HAND_WRITTEN_SCALED.name} pass; served metrics: 0 promtool findings"
    )


if __name__ == "__main__":
    main()
