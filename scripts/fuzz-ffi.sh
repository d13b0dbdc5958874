#!/usr/bin/env bash
# Fuzzes the C entry points with cargo-fuzz (libFuzzer + ASan, nightly toolchain) for a number of
# executions (bounded by a time limit too) and prints the executions reached. Not part of the test
# command: a benchmark-style run (10 million executions take about an hour on 2 cores).
# Usage: scripts/fuzz-ffi.sh [RUNS=10000000] [MAX_SECONDS=7200]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10000000}
seconds=${2:-7200}
tools=$PWD/target/tools
if ! "$tools/bin/cargo-fuzz" --version > /dev/null 2>&1; then
  cargo install --quiet --locked --version 0.13.1 --root "$tools" cargo-fuzz
fi
cd ffi
mkdir -p fuzz/corpus/c_api
RUSTUP_TOOLCHAIN=nightly "$tools/bin/cargo-fuzz" run --fuzz-dir fuzz c_api fuzz/corpus/c_api -- \
  -runs="$runs" -max_total_time="$seconds" -rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 2>&1 | tee ../target/fuzz-ffi.log | tail -25
