#!/usr/bin/env python3
"""Prints the strategy benchmark table (docs/benchmarks.md) from criterion's results in target/criterion.

Run `cargo bench -p rocketmq-rebalance --bench strategies` first; every figure comes from that one
run, and the ratios compare benchmarks measured side by side in it.
"""

import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")


def ns(group, bench):
    path = root / group / bench / "new" / "estimates.json"
    return json.loads(path.read_text())["median"]["point_estimate"]


def fmt(t):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if t >= scale:
            return f"{t / scale:.2f} {unit}"
    return f"{t:.0f} ns"


names = ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "MACHINE_ROOM_NEARBY-AVG", "MACHINE_ROOM"]
print("| size (queues x ids) | strategy | one member | group view | group / one pass | group / one member | one member / MD5 of keys |")
print("|---|---|---|---|---|---|---|")
for size in ["16x4", "1000x100", "100000x1000"]:
    group = f"strategies_{size}"
    if not (root / group).exists():
        continue
    one_pass = ns(group, "baseline_one_pass")
    md5 = ns(group, "baseline_md5_queue_keys")
    for name in names:
        one = ns(group, f"one_member/{name}")
        whole = ns(group, f"group/{name}")
        print(f"| {size} | {name} | {fmt(one)} | {fmt(whole)} | {whole / one_pass:.2f}x | {whole / one:.2f}x | {one / md5:.2f}x |")
    route = ns(group, "one_member_cold_route_CONSISTENT_HASH")
    print(f"| {size} | CONSISTENT_HASH, route new to the instance (ring kept) | {fmt(route)} | | | | {route / md5:.2f}x |")
    cold = ns(group, "one_member_cold_ring_CONSISTENT_HASH")
    print(f"| {size} | CONSISTENT_HASH, new ring and route each call | {fmt(cold)} | | | | {cold / md5:.2f}x |")
    print(f"| {size} | baseline: one pass / MD5 of keys | {fmt(one_pass)} | {fmt(md5)} | | | |")


# Consistent hash warm and cold against the single-stream MD5 of its keys, and the MD5 paths.
print()
print(
    "| size (queues x ids) | one member, warm (same route) | group view, warm | route new to the instance (ring kept) | new ring and route | MD5 of keys, one stream | warm / MD5 | route new / MD5 |"
)
print("|---|---|---|---|---|---|---|---|")
paths = {}
for size in ["16x4", "1000x100", "100000x1000"]:
    group = f"strategies_{size}"
    if not (root / group).exists():
        continue
    md5 = ns(group, "baseline_md5_queue_keys")
    warm, whole = ns(group, "one_member/CONSISTENT_HASH"), ns(group, "group/CONSISTENT_HASH")
    route, cold = ns(group, "one_member_cold_route_CONSISTENT_HASH"), ns(group, "one_member_cold_ring_CONSISTENT_HASH")
    print(f"| {size} | {fmt(warm)} | {fmt(whole)} | {fmt(route)} | {fmt(cold)} | {fmt(md5)} | {warm / md5:.2f}x | {route / md5:.2f}x |")
    batch = root / group / "md5_queue_keys_batch"
    for path_dir in sorted(batch.iterdir()) if batch.exists() else []:
        if (path_dir / "new").exists():
            paths.setdefault(path_dir.name, {})[size] = ns(group, f"md5_queue_keys_batch/{path_dir.name}") / md5
if paths:
    sizes = ["16x4", "1000x100", "100000x1000"]
    print()
    print("| MD5 path (keys written and hashed many at once) | " + " | ".join(f"{s} / one stream" for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for name, by_size in sorted(paths.items(), key=lambda kv: -kv[1].get("100000x1000", 0)):
        print(f"| {name} | " + " | ".join(f"{by_size[s]:.2f}x" if s in by_size else "" for s in sizes) + " |")
