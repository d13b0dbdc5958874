"""Fails when a shipped crate's release build would compile the core crate apart from the others.

Cargo turns on a dependency's features per build, from the packages that build selects. When the
C library, the CLI, the wheel and the JNI library each see other features on a crate the core
crate depends on (hmac's `digest/mac`, pyo3's macros on `syn`), the core crate gets another hash in
each and is compiled once per artifact. unify/ asks for the union in all of them; this check
compares, for every crate in the core crate's dependency tree (the proc-macro side included), the
features each shipped crate's build resolves.

Usage: check_unified.py   (from anywhere; prints one line)
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ["rocketmq-rebalance-c", "rocketmq-rebalance-cli", "rocketmq-rebalance-python", "rocketmq-rebalance-jni"]


def tree(package: str, fmt: str) -> list[str]:
    cmd = ["cargo", "tree", "-q", "--locked", "-p", package, "-e", "normal,build", "--prefix", "none", "-f", fmt]
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout.splitlines()


def main():
    core = {line.split(" (")[0] for line in tree("rocketmq-rebalance", "{p}")}
    resolved = {}
    for package in SHIPPED:
        lines = {line.removesuffix(" (*)") for line in tree(package, "{p} [{f}]")}
        resolved[package] = sorted(line for line in lines if line.split(" [")[0].split(" (")[0] in core)
    first = SHIPPED[0]
    for package in SHIPPED[1:]:
        if resolved[package] != resolved[first]:
            only = sorted(set(resolved[package]) ^ set(resolved[first]))
            sys.exit(
                f"{package} and {first} resolve the core crate's dependencies with other features, so each compiles it again:\n  "
                + "\n  ".join(only)
                + "\nAdd the union to unify/Cargo.toml."
            )
    print(f"unify: {', '.join(SHIPPED)} resolve the same features on the core crate's {len(resolved[first])} dependency crates")


if __name__ == "__main__":
    main()
