#!/usr/bin/env bash
# Stage of the test command (scripts/test-all.sh): the README's command line and Rust quick start, run as written.
# The README's command line installed as written (its first allocation prints what
# the README shows) and its Rust quick start as a program of its own.
# Runs alone too: scripts/test-all.sh --only readme, or this file. RMQ_SEED replays random inputs.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
readme_block() { python3 scripts/docs/check_readme_examples.py --print-block "$1" "$2"; }
CARGO_INSTALL_ROOT=$work/cli bash -euo pipefail -c "$(readme_block "## Build and install the command line" sh)"
PATH="$work/cli/bin:$PATH" bash -euo pipefail -c "$(readme_block "## A first allocation" sh)" > "$work/first-allocation.txt"
diff <(readme_block "## A first allocation" text) "$work/first-allocation.txt"
echo "rmq-rebalance installed by cargo install; its output equals the README's"
scratch=$work/readme-rust
mkdir -p "$scratch/src"
readme_block "## Quick start: Rust" rust > "$scratch/src/main.rs"
cat > "$scratch/Cargo.toml" <<TOML
[package]
name = "readme-quick-start"
version = "0.1.0"
edition = "2021"

[dependencies]
rocketmq-rebalance = { path = "$root/core" }
serde_json = "1"
TOML
CARGO_TARGET_DIR=$root/target/readme-rust cargo run -q --manifest-path "$scratch/Cargo.toml" | grep "gives c1"
