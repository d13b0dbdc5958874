"""Prints the table of docs/simulator.md from the JSON summaries of scripts/docs/simulate-all.sh.

usage: python3 scripts/docs/sim_table.py DIR SCENARIO...
"""

import json
import pathlib
import sys

out, scenarios = pathlib.Path(sys.argv[1]), sys.argv[2:]
print(
    "| scenario | semantics | host signals restarts | seeds | violating seeds | exclusivity | lost | offset regressions | convergence | unlocks under a running call "
    "| duplicates per 1,000 msgs | max handoff gap | forced unlocks | leaked locks | releases given up "
    "| clashes no client can fence (broker restart / partition / duplicate id / given up) | two-writer regressions |"
)
print("|---" * 17 + "|")
for scenario in scenarios:
    for variant in ("safe", "safe-nosignal", "java"):
        a = json.loads((out / f"{scenario}-{variant}.json").read_text())
        semantics, signal = a["semantics"], "yes" if a["restart_signal"] else "no"
        v, o = a["violations"], a["observed"]
        dup = 1000 * a["duplicates"] / max(1, a["messages_produced"])
        unfenced = f"{o['after_broker_lock_loss']} / {o['clashes_after_partition']} / {o['clashes_duplicate_id']} / {o['clashes_after_give_up']}"
        print(
            f"| {scenario} | {semantics} | {signal} | {a['seeds']} | {a['seeds_with_violations']} | {v['orderly_exclusivity']} | {v['lost_messages']} "
            f"| {v['offset_regressions']} | {v['convergence']} | {v['unlock_under_call']} | {dup:.2f} | {a['max_handoff_gap_ms'] / 1000:.0f} s | {o['forced_unlocks']} "
            f"| {o['leaked_locks']} | {o['releases_given_up']} | {unfenced} | {o['regressions_two_writers']} |"
        )
