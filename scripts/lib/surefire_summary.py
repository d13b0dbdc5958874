"""Sums the Surefire reports of the Java tests (target/surefire-reports), one line a class with its wall time.

usage: python3 surefire_summary.py [REPORTS_DIR]   (from bindings/java; default target/surefire-reports)
"""

import glob
import re
import sys

reports = sys.argv[1] if len(sys.argv) > 1 else "target/surefire-reports"

total = failed = 0
rows = []
for f in glob.glob(f"{reports}/TEST-*.xml"):
    head = open(f).read(2000)
    m = re.search(r'tests="(\d+)" errors="(\d+)" skipped="(\d+)" failures="(\d+)"', head)
    if m:
        t, e, s, fl = map(int, m.groups())
        total += t
        failed += e + fl
        took = re.search(r'<testsuite [^>]*time="([\d.,]+)"', head)
        seconds = float(took.group(1).replace(",", "")) if took else 0.0
        rows.append((seconds, f"  {f.split('TEST-')[1][:-4]}: {t} tests, {e + fl} failed, {seconds:.0f} s"))
# Slowest first: where a stage's time goes.
for _, line in sorted(rows, reverse=True):
    print(line)
print(f"  {total} tests, {failed} failed")
if total == 0:
    # A stage whose tests all vanished (a wrong folder, a compile exclude) must not pass as green.
    sys.exit(f"no Surefire reports with tests in {reports}")
sys.exit(1 if failed else 0)
