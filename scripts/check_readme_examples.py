"""The README's C and C++ blocks must be the example files the tests build.

usage: python3 scripts/check_readme_examples.py   (from the repository root)
"""
import re, sys
readme = open("README.md").read()
section = readme.split("## Using it from C/C++", 1)[1]
for lang, path in (("c", "examples/c/allocate.c"), ("cpp", "examples/cpp/main.cpp")):
    block = re.search(r"```" + lang + r"\n(.*?)```", section, re.S).group(1)
    if block != open(path).read():
        sys.exit(f"README's {lang} example differs from {path}")
print("README examples match examples/c/allocate.c and examples/cpp/main.cpp")