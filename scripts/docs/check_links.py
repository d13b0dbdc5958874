"""Every relative link in README.md and docs/*.md points at a file that exists, and every
#anchor at a heading of that file (GitHub's anchor rules). Links outside the repository are
refused: the docs must stand on their own.

usage: python3 scripts/docs/check_links.py   (from the repository root)
"""

import glob
import os
import re
import sys


def anchors(path):
    out = set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"#+ (.*)", line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
            out.add(text.replace(" ", "-"))
    return out


bad = []
for doc in ["README.md"] + sorted(glob.glob("docs/*.md")):
    text = open(doc, encoding="utf-8").read()
    # Code blocks can hold link-like text; only prose links count.
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        if not os.path.exists(resolved):
            bad.append(f"{doc}: {target} (no file {resolved})")
        elif not os.path.abspath(resolved).startswith(os.path.abspath(".")):
            bad.append(f"{doc}: {target} points outside the repository")
        elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
            bad.append(f"{doc}: {target} (no heading #{anchor} in {resolved})")
if bad:
    sys.exit("broken links:\n  " + "\n  ".join(bad))
print("links in README.md and docs/ resolve")
