"""Measures two safe-mode features against the same seeds with each turned off, and prints a table.

- the early round after a deferred release or a lost lock (timing.deferred_retry_ms = 1000 vs 0):
  how long queues go without a consumer;
- the host's broker-restart signal (signal_broker_restarts = true vs false): orderly clashes and
  offset regressions attributed to a restarted broker's forgotten locks.

usage: python3 scripts/docs/sim_before_after.py [SEEDS]   (default 2000; run after a release build of
the CLI: cargo build --release -p rocketmq-rebalance-cli)
"""

import json
import pathlib
import re
import subprocess
import sys
import tempfile

SIM = "target/release/rmq-rebalance"
seeds = sys.argv[1] if len(sys.argv) > 1 else "2000"
scenarios = pathlib.Path("sim/scenarios")


def with_timing(text: str, key: str, value: str) -> str:
    if re.search(r"^\[timing\]$", text, re.M):
        return re.sub(r"^\[timing\]$", f"[timing]\n{key} = {value}", text, count=1, flags=re.M)
    return text + f"\n[timing]\n{key} = {value}\n"


def with_top_level(text: str, key: str, value: str) -> str:
    # Top-level keys must come before the first table.
    return re.sub(r"^(name = .*)$", rf"\1\n{key} = {value}", text, count=1, flags=re.M)


def run(text: str) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(text)
    out = subprocess.run([SIM, "simulate", "--scenario", f.name, "--seeds", seeds, "--json"], capture_output=True, text=True)
    return json.loads(out.stdout)


print(f"Early round after a deferral or lost lock ({seeds} seeds each, safe mode)")
print("| scenario | queue-seconds without a consumer, early round | without it | longest gap, early round | without it |")
print("|---|---|---|---|---|")
for name in ("default", "orderly-handoff", "chaos", "host-faults"):
    text = (scenarios / f"{name}.toml").read_text()
    on, off = run(text), run(with_timing(text, "deferred_retry_ms", "0"))
    print(
        f"| {name} | {on['unowned_queue_ms'] / 1000:.0f} | {off['unowned_queue_ms'] / 1000:.0f} "
        f"| {on['max_handoff_gap_ms'] / 1000:.0f} s | {off['max_handoff_gap_ms'] / 1000:.0f} s |"
    )

print()
print(f"Broker-restart signal (locks_lost) ({seeds} seeds each, safe mode)")
print("| scenario | clashes/regressions after a broker forgot its locks, signalled | not signalled | violations, signalled | not signalled |")
print("|---|---|---|---|---|")
for name in ("default", "chaos", "host-faults"):
    text = (scenarios / f"{name}.toml").read_text()
    on, off = run(text), run(with_top_level(text, "signal_broker_restarts", "false"))

    def total(a):
        return sum(a["violations"].values())

    print(f"| {name} | {on['observed']['after_broker_lock_loss']} | {off['observed']['after_broker_lock_loss']} | {total(on)} | {total(off)} |")
