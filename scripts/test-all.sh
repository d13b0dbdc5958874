#!/usr/bin/env bash
# Builds and runs every test in every language. This is the README's test command, and .ci/run
# calls exactly this. Needs: cargo (rustup), a JDK 17 + Maven (Maven Central), python3.
# Randomised checks print their seed; rerun one with RMQ_SEED=<seed> scripts/test-all.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seed=${RMQ_SEED:-$(date +%s)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() { printf '\n=== %s\n' "$*"; }

step "Rust: unit, conformance-vector, property and CLI tests"
cargo test --workspace --locked

step "Vectors: regenerate with the real rocketmq-client 5.3.3 and compare with the committed ones"
tests/vectors/run.sh vectors "$work/v53"
diff -r -q "$root/tests/vectors/data" "$work/v53"
echo "committed vectors reproduced by rocketmq-client 5.3.3"

step "Vectors: rocketmq-client 4.9.8 gives the same answers"
tests/vectors/run.sh --rmq49 vectors "$work/v49"
for f in "$root"/tests/vectors/data/*.jsonl; do
  cmp "$f" "$work/v49/$(basename "$f")"
done
echo "rocketmq-client 4.9.8 agrees on every committed vector"

step "CLI batch form on 5,000 cases it has never seen (seed $seed)"
cargo build --locked --release -p rocketmq-rebalance-cli
tests/vectors/run.sh random "$seed" 5000 > "$work/random.jsonl"
python3 tests/vectors/check_cli.py target/release/rmq-rebalance "$work/random.jsonl"

step "All test suites passed (seed $seed)"
