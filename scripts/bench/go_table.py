"""Reads `go test -bench` output of bindings/go on stdin; prints medians and ratios as a table.

usage: scripts/bench/go.sh   (which pipes the benchmark run into this)
"""

import re
import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)
for line in sys.stdin:
    m = re.match(r"BenchmarkStrategies/(\S+)/(\S+)/(go-client|rmqrebalance)-\d+\s+\d+\s+([\d.]+) ns/op", line)
    if m:
        runs[(m.group(2), m.group(1), m.group(3))].append(float(m.group(4)))


def fmt(ns):
    return f"{ns / 1000:,.2f} us" if ns >= 1000 else f"{ns:.0f} ns"


print("| size (queues x ids) | strategy | Go client | rmqrebalance | rmqrebalance / Go client |")
print("|---|---|---:|---:|---:|")
for size, name in sorted({(k[0], k[1]) for k in runs}, key=lambda k: (int(k[0].split("x")[0]), k[1])):
    theirs, ours = statistics.median(runs[(size, name, "go-client")]), statistics.median(runs[(size, name, "rmqrebalance")])
    print(f"| {size} | {name} | {fmt(theirs)} | {fmt(ours)} | {ours / theirs:.2f}x |")
