"""The manual stays a manual: a page says what is, not when it was measured or what happened on the
way (that history belongs in commit messages). Fails on a page of docs/ or the README that names a
date, a moment of work ("the same evening", "an earlier form of this run") or one of the project's
own issue numbers. References to other projects' trackers (`apache/rocketmq #1945`) are facts
and stay.

usage: python3 scripts/docs/check_manual.py [FILE...]   (default: README.md and docs/*.md)
"""

import re
import sys
from pathlib import Path

PATTERNS = [
    (re.compile(r"\b20\d\d-\d\d-\d\d\b"), "a date"),
    (re.compile(r"\b(the same|this|that|last) (evening|morning|afternoon|night|day|week)\b", re.I), "a moment of work"),
    (re.compile(r"\b(yesterday|earlier today)\b", re.I), "a moment of work"),
    (re.compile(r"\ban earlier (form|version) of this\b", re.I), "history"),
    (re.compile(r"\bbefore (this|the) (change|fix|work)\b", re.I), "history"),
    (re.compile(r"(?<![\w/#-])(issue|stop|review) (#)?\d+\b", re.I), "one of the project's own issue numbers"),
]


def findings(path):
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        for pattern, what in PATTERNS:
            m = pattern.search(line)
            if m:
                yield f"{path}:{n}: {what} ({m.group(0)!r}): {line.strip()[:100]}"


def main(paths):
    found = [f for p in paths for f in findings(p)]
    for f in found:
        print(f, file=sys.stderr)
    if found:
        sys.exit(f"{len(found)} line(s) read as a diary, not a manual: say what is, and put the history in a commit message")
    print(f"manual: {len(paths)} pages name no date, moment of work or issue number")


if __name__ == "__main__":
    main(sys.argv[1:] or ["README.md"] + sorted(str(p) for p in Path("docs").glob("*.md")))
