"""The test command's record of its own wall times.

test_times.py write OUT SEED TOTAL STAGE=SECONDS:STATUS...
    writes OUT (target/test-times.json): the seed, the commit, each stage's seconds and status,
    the e2e scenarios' seconds (merged from target/test-times.d/*.json), the total, and whether
    every stage ran and passed.
test_times.py check-readme [README] [RECORD]
    fails when the README's "takes about N minutes" is more than 20% off the total of the
    committed record (docs/test-times.json, a fresh clone's target/test-times.json copied by hand
    after a full run), or when that record is not of a complete, passing run.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

STAGES = ["style", "java", "e2e", "rust", "c", "go", "vectors", "readme", "python", "sim"]
TOLERANCE = 0.20


def write(out, seed, total, entries):
    stages = {}
    for entry in entries:
        name, rest = entry.split("=", 1)
        seconds, status = rest.split(":", 1)
        stages[name] = {"seconds": int(seconds), "passed": status == "passed"}
    # In the stages' order, whichever ended first (e2e ends after the stages that run beside it).
    stages = {name: stages[name] for name in STAGES + sorted(set(stages) - set(STAGES)) if name in stages}
    record = {
        "seed": seed,
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or None,
        "ci": os.environ.get("CI") == "true",
        "complete": list(stages) == STAGES and all(s["passed"] for s in stages.values()),
        "total_seconds": int(total),
        "stages": stages,
    }
    for part in sorted(Path("target/test-times.d").glob("*.json")):
        record.update(json.loads(part.read_text()))
    Path(out).write_text(json.dumps(record, indent=1) + "\n")


def check_readme(readme="README.md", record_path="docs/test-times.json"):
    text = Path(readme).read_text()
    said = re.search(r"takes about (\d+) minutes", text)
    if not said:
        sys.exit(f"{readme} does not say how long the test command takes ('takes about N minutes')")
    record = json.loads(Path(record_path).read_text())
    if not record.get("complete"):
        sys.exit(f"{record_path} is not the record of a complete, passing run of every stage")
    minutes, measured = int(said.group(1)), record["total_seconds"] / 60
    if abs(minutes - measured) > TOLERANCE * measured:
        sys.exit(f"{readme} says the test command takes about {minutes} minutes; {record_path} measured {measured:.1f} (more than {TOLERANCE:.0%} apart)")
    print(f"{readme}: about {minutes} minutes, {record_path} measured {measured:.1f} (commit {record.get('commit')})")


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif len(sys.argv) >= 2 and sys.argv[1] == "check-readme":
        check_readme(*sys.argv[2:4])
    else:
        sys.exit(__doc__)
