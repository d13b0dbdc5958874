#!/usr/bin/env python3
"""Feeds Java-answered cases to `rmq-rebalance allocate --cases -` and compares every answer.

    check_cli.py CLI CASES.jsonl

CASES.jsonl lines carry Java's answer under "expected" (from `run.sh random SEED COUNT` or the
committed vectors); "expected" is removed before the CLI sees a case. Results must be equal; errors
must name the same exception class and, for IllegalArgumentException, the same message (a
NullPointerException's message is the JVM's own wording, JEP 358). Exit 1 on any difference.
"""

import json
import subprocess
import sys


def same(expected, got):
    if "result" in expected:
        return "result" in got and got["result"] == expected["result"]
    want_class, _, want_msg = expected["error"].partition(": ")
    if "error" not in got:
        return False
    got_class, _, got_msg = got["error"].partition(": ")
    return want_class == got_class and (want_class == "NullPointerException" or want_msg == got_msg)


def main():
    cli, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    expected = [c.pop("expected") for c in cases]
    stdin = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases)
    run = subprocess.run([cli, "allocate", "--cases", "-"], input=stdin, capture_output=True, text=True, encoding="utf-8")
    if run.returncode != 0:
        sys.exit(f"CLI exited {run.returncode}: {run.stderr}")
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    if len(answers) != len(cases):
        sys.exit(f"{len(cases)} cases in, {len(answers)} answers out")
    bad = [(c["id"], e, a) for c, e, a in zip(cases, expected, answers) if a.get("id") != c["id"] or not same(e, a)]
    for case_id, e, a in bad[:10]:
        print(f"{case_id}: Java {json.dumps(e)[:300]} / CLI {json.dumps(a)[:300]}")
    print(f"cli batch: {len(cases) - len(bad)} passed, {len(bad)} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
