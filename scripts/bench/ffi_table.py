"""The C API benchmark table: medians of the C and Rust timings of scripts/bench/ffi.sh.

usage: python3 scripts/bench/ffi_table.py LOG
"""

import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)
for line in open(sys.argv[1]):
    side, name, call, q, c, ns = line.split()
    runs[(name, call, int(q), int(c), side)].append(float(ns))
print("| strategy | call | queues x ids | Rust ns | C API ns | C / Rust |")
print("|---|---|---|---:|---:|---:|")
for name, call, q, c, side in sorted(runs):
    if side != "c":
        continue
    cn = statistics.median(runs[(name, call, q, c, "c")])
    rn = statistics.median(runs[(name, call, q, c, "rust")])
    print(f"| {name} | {call} | {q} x {c} | {rn:.0f} | {cn:.0f} | {cn / rn:.2f}x |")
