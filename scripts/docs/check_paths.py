"""Every repository path the manual names exists: in README.md and docs/*.md, each `backticked`
path that starts at a top-level folder; and in docs/development.md's layout table, each file a row
names exists under that row's folder. A renamed or deleted file fails here until the page follows.

usage: python3 scripts/docs/check_paths.py   (from the repository root)
"""

import glob
import re
import subprocess
import sys

TOP = ("core", "ffi", "bindings", "scripts", "docs", "tests", "examples", "include", "sim", "cli", ".ci")
tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()
dirs = {"/".join(f.split("/")[:i]) for f in tracked for i in range(1, f.count("/") + 1)}


def exists(path):
    path = path.rstrip("/")
    return path in dirs or path in tracked


bad = []
for doc in ["README.md"] + sorted(glob.glob("docs/*.md")):
    text = re.sub(r"```.*?```", "", open(doc, encoding="utf-8").read(), flags=re.S)
    for token in re.findall(r"`([^`\s]+)`", text):
        token = token.split("#")[0].split(":")[0]
        if not token.startswith(tuple(t + "/" for t in TOP)) or any(c in token for c in "*<>{}$[]") or "..." in token:
            continue
        if not exists(token):
            bad.append(f"{doc}: `{token}` does not exist")

# The layout table: | `folder/` | ... `file.ext` ... |
for line in open("docs/development.md", encoding="utf-8"):
    row = re.match(r"\| `([^`]+/)` \|(.*)\|\s*$", line)
    if not row:
        continue
    folder, cells = row.group(1).rstrip("/"), row.group(2)
    under = [f for f in tracked if f.startswith(folder + "/")]
    for token in re.findall(r"`([^`\s]+\.(?:rs|py|pyi|java|go|sh|md|toml|h|hpp|c|cpp|map|py|xml|jsonl))`", cells):
        if any(c in token for c in "*<>{}") or token.startswith(TOP):
            continue
        if not any(f == f"{folder}/{token}" or f.endswith("/" + token) for f in under):
            bad.append(f"docs/development.md: `{token}` is not under {folder}/")
if bad:
    sys.exit("paths the docs name that do not exist:\n  " + "\n  ".join(bad))
print("every path README.md and docs/ name exists")
