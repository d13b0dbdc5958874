"""The JMH table of scripts/bench/java.sh: the Java original against the native strategies.

usage: python3 scripts/bench/java_table.py JMH_JSON
"""

import json
import sys

rows = {}
for r in json.load(open(sys.argv[1])):
    p = r["params"]
    rows.setdefault((p["size"], p["strategy"]), {})[p["impl"]] = r["primaryMetric"]["score"]
order = {"16x4": 0, "1000x100": 1, "100000x1000": 2}
print("| size (queues x ids) | strategy | Java original | native | native / Java |")
print("|---|---|---:|---:|---:|")
for (size, strategy), v in sorted(rows.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
    if "java" in v and "native" in v:
        print(f"| {size} | {strategy} | {v['java']:,.2f} us | {v['native']:,.2f} us | {v['native'] / v['java']:.2f}x |")
md5 = {size: v["md5_of_keys"] for (size, strategy), v in rows.items() if "md5_of_keys" in v}
if md5:
    print()
    print("| size (queues x ids) | MD5 of keys (MessageDigest) | CONSISTENT_HASH Java original / MD5 | native / MD5 |")
    print("|---|---:|---:|---:|")
    for size in sorted(md5, key=order.get):
        ch = rows.get((size, "CONSISTENT_HASH"), {})
        java = f"{ch['java'] / md5[size]:.2f}x" if "java" in ch else ""
        nat = f"{ch['native'] / md5[size]:.2f}x" if "native" in ch else ""
        print(f"| {size} | {md5[size]:,.2f} us | {java} | {nat} |")
