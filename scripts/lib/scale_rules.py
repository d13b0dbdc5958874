"""deploy/prometheus/rmq-rebalance.rules.yml for another round interval than the 30 s it is written
for: every `for` multiplied by INTERVAL/30 (whole seconds, at least one round and at least
CLIENT_REBALANCE). The alert e2e and the
recorded rule tests (scripts/lib/check_deploy.py) run 3 s rounds.

Never below CLIENT_REBALANCE: the clients' own clocks do not scale with the round. When a member
joins or leaves, the others drop their share at once and the new holder takes it at its next
rebalance, so a queue is held by nobody (or by two) for up to one client rebalance, 20 s, whatever
watch's interval. Rounds of 30 s see such a moment at most once, so `for: 30s` never fires on it;
3 s rounds see it several times, and a `for` scaled to 3 s paged a healthy rolling restart
(orphaned for two rounds while a new member's first rebalance took its share).

Usage: scale_rules.py INTERVAL_SECONDS   (prints the scaled rules)
"""

import math
import re
import sys
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "deploy/prometheus/rmq-rebalance.rules.yml"
WRITTEN_FOR = 30  # s: the interval the shipped rules' `for`s are written for
CLIENT_REBALANCE = 20  # s: the Java client's rebalance interval, the longest a handoff's moment lasts


def seconds(duration: str) -> int:
    """'30s', '1m', '2h' in seconds."""
    return int(duration[:-1]) * {"s": 1, "m": 60, "h": 3600}[duration[-1]]


def scaled_rules(interval: int) -> str:
    def scale(m: re.Match) -> str:
        return f"{m.group(1)}{max(interval, CLIENT_REBALANCE, math.ceil(seconds(m.group(2)) * interval / WRITTEN_FOR))}s"

    return re.sub(r"^(\s+for: )(\d+[smh])$", scale, RULES.read_text(), flags=re.M)


def alerts(text: str) -> dict[str, dict]:
    """{alert name: {"expr": its expression, "for": its `for` in seconds, 0 without}} of a rules file."""
    out, current = {}, None
    for line in text.splitlines():
        if m := re.match(r"^\s+- alert: (\S+)$", line):
            current = out.setdefault(m.group(1), {"expr": "", "for": 0})
        elif re.match(r"^\s+- record: ", line):
            current = None
        elif current is not None and (m := re.match(r"^\s+expr: (.+)$", line)):
            current["expr"] = m.group(1)
        elif current is not None and (m := re.match(r"^\s+for: (\d+[smh])$", line)):
            current["for"] = seconds(m.group(1))
    return out


if __name__ == "__main__":
    print(scaled_rules(int(sys.argv[1])), end="")
