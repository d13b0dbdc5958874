"""A `promtool test rules` file made from what the alert e2e's Prometheus recorded (the series
`watch` served on a real cluster, none typed by hand), and its run.

One test per scenario of tests/e2e/drivers/alerts.py, its time 0 the scenario's start:
- the series the rules read, for the scenario's group, every round of its span, as scraped;
- for an expected alert: the first round of the first run of rounds its condition held for its
  whole `for` (Prometheus evaluating the alert's expression on the same series), and at its `for`
  plus one round later, the alerts firing for the
  group must be exactly the expected one, with the labels it fired with live: each alert fires
  within 2 rounds of its condition (plus its `for`, where that is longer than a round);
- for a group that should stay silent: at every round of its span, nothing firing.
promtool evaluates the rules itself on the recorded series, apart from the live Prometheus, so the
file is a regression test of the rules: scripts/lib/check_deploy.py runs the copy kept in
deploy/prometheus/tests/ in every test command, with no cluster.
"""

import json
import math
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts/lib"))
from scale_rules import alerts as rule_alerts  # noqa: E402
from scale_rules import CLIENT_REBALANCE, scaled_rules  # noqa: E402, F401  (for the alert e2e)

# What the rules read (their recording rules included): nothing else is recorded.
READ = "topic_cause_queues|topic_cause_lag_messages|topic_lag_messages|topic_drainable_lag_messages|topic_stuck_lag_messages|owner_changes_total|group_members|topic_queues|topic_flapping_queues|group_up"
# Labels that name the scrape, not the cluster: dropped so that the file reads the same every run.
SCRAPE_LABELS = ("instance", "job")


def encode(values):
    """promtool's expanding notation, runs folded: '5+0x3' is four 5s, '_x2' two missing."""
    out, i = [], 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[i]:
            j += 1
        n, v = j - i + 1, values[i]
        out.append(v if n == 1 and v != "_" else ("_" if n == 1 else f"_x{n}") if v == "_" else f"{v}+0x{n - 1}")
        i = j + 1
    return " ".join(out)


def series_text(metric):
    labels = ",".join(f"{k}={json.dumps(v)}" for k, v in sorted(metric.items()) if k != "__name__" and k not in SCRAPE_LABELS)
    return f"{metric['__name__']}{{{labels}}}"


def steps(prom, expr, start, end, interval):
    """[(metric, [value or '_' at each step])] of expr from start to end."""
    data = prom.api("query_range", query=expr, start=start, end=end, step=f"{interval}s")
    n = int((end - start) // interval) + 1
    out = []
    for r in data["result"]:
        by_step = {round((float(t) - start) / interval): v for t, v in r["values"]}
        out.append((r["metric"], [by_step.get(i, "_") for i in range(n)]))
    return out


def first_lasting(held, rounds):
    """The first step of the first run of steps in `held` that lasts `rounds` more steps: where
    the alert's `for` starts counting. A shorter run before it resets `for` and is not the fault
    (a stopping consumer's last uncommitted messages, seen for one round as the group empties)."""
    for i in sorted(held):
        if all(i + k in held for k in range(rounds + 1)):
            return i
    return None


def scenario_test(prom, name, group, began, ended, expected, rules_text, interval):
    """One promtool test of a scenario (None when the recorded series do not show its fault)."""
    start = math.floor(began / interval) * interval
    end = math.ceil(ended / interval) * interval
    inputs = [
        {"series": series_text(m), "values": encode(v)}
        for m, v in steps(prom, f'{{__name__=~"rmq_rebalance_({READ})",consumer_group="{group}"}}', start, end, interval)
    ]
    firing = f'ALERTS{{alertstate="firing",consumer_group="{group}"}}'
    checks = []
    if not expected:
        checks = [{"expr": firing, "eval_time": f"{i * interval}s", "exp_samples": []} for i in range(int((end - start) // interval) + 1)]
    for alert in sorted(expected):
        rule = rule_alerts(rules_text)[alert]
        held = {i for m, v in steps(prom, rule["expr"], start, end, interval) if m.get("consumer_group") == group for i, x in enumerate(v) if x != "_"}
        began_holding = first_lasting(held, rule["for"] // interval)
        if began_holding is None:
            raise SystemExit(f"{name}: the recorded series never meet {alert}'s condition for its `for`")
        at = began_holding * interval + rule["for"] + interval
        live = prom.api("query", query=f"max_over_time({firing}[{math.ceil(ended - began) + interval}s])", time=ended)["result"]
        labels = [r["metric"] for r in live if r["metric"]["alertname"] == alert]
        if not labels:
            raise SystemExit(f"{name}: {alert} never fired live")
        sample = {"labels": series_text({**labels[0], "__name__": "ALERTS"}), "value": 1}
        checks.append({"expr": firing, "eval_time": f"{at}s", "exp_samples": [sample]})
    return {"name": name, "interval": f"{interval}s", "input_series": inputs, "promql_expr_test": checks}


def write_and_test(promtool, out, tests, rules_file, interval):
    """Writes the test file beside a copy of the scaled rules and runs promtool on it."""
    # The groups in the rules file's order (records first): without an order promtool evaluates a
    # tick's groups in a random one, and an alert on a recording would see it a round late.
    order = re.findall(r"^\s+- name: (\S+)$", rules_file.read_text(), re.M)
    record = {"rule_files": [rules_file.name], "evaluation_interval": f"{interval}s", "group_eval_order": order, "tests": tests}
    out.write_text(json.dumps(record, indent=1) + "\n")
    r = subprocess.run([promtool, "test", "rules", out.name], cwd=out.parent, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"promtool test rules {out} failed:\n{r.stdout}{r.stderr}")
    checks = sum(len(t["promql_expr_test"]) for t in tests)
    series = sum(len(t["input_series"]) for t in tests)
    return f"promtool test rules on the recorded series: {len(tests)} scenarios, {series} series, {checks} checks passed"
