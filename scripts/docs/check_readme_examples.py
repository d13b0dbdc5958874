"""The README's quick starts are the files the tests build and run.

usage: python3 scripts/docs/check_readme_examples.py            (from the repository root) checks that
         the C block is examples/c/allocate.c and every line of the Java block is in
         examples/java/src/main/java/example/AllocateExample.java;
       python3 scripts/docs/check_readme_examples.py --print-block HEADING LANG
         prints the first ```LANG block under that heading (the tests run it as written).
"""

import re
import sys

README = open("README.md", encoding="utf-8").read()


def section(heading):
    if heading not in README:
        sys.exit(f"README has no section {heading!r}")
    return README.split(heading, 1)[1].split("\n## ", 1)[0]


def block(heading, lang):
    found = re.search(r"```" + lang + r"\n(.*?)```", section(heading), re.S)
    if not found:
        sys.exit(f"README's {heading!r} has no {lang} block")
    return found.group(1)


if sys.argv[1:2] == ["--print-block"]:
    print(block(sys.argv[2], sys.argv[3]), end="")
    sys.exit(0)

if block("## Quick start: C and C++", "c") != open("examples/c/allocate.c", encoding="utf-8").read():
    sys.exit("README's C block differs from examples/c/allocate.c")
java_file = "examples/java/src/main/java/example/AllocateExample.java"
java_lines = {line.strip() for line in open(java_file, encoding="utf-8")}
missing = [line for line in block("## Quick start: Java", "java").splitlines() if line.strip() and line.strip() not in java_lines]
if missing:
    sys.exit(f"README's Java lines not in {java_file}: {missing}")
print("README's C block is examples/c/allocate.c; its Java lines are in " + java_file)
