#!/usr/bin/env bash
# FFI overhead: one-member allocation through the C API (ffi/bench/bench_allocate.c) against the
# same call on the Rust API (core/examples/bench_allocate.rs), both release builds, alternated
# ROUNDS times in one run; prints the median ns per call of each and their ratio.
# Usage: scripts/bench/ffi.sh [ROUNDS=5] [ITERATIONS=2000000]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5}
iterations=${2:-2000000}
prefix=$PWD/target/c-prefix
scripts/install-c.sh "$prefix" > /dev/null
cargo build --locked --release -q -p rocketmq-rebalance --example bench_allocate
gcc -std=c11 -O2 -Wall -Wextra -Werror -I"$prefix/include" -o target/bench_allocate_c ffi/bench/bench_allocate.c \
  -L"$prefix/lib" -lrocketmq_rebalance -Wl,-rpath,"$prefix/lib"
log=target/bench-ffi.log
: > "$log"
for _ in $(seq "$rounds"); do
  target/bench_allocate_c "$iterations" >> "$log"
  target/release/examples/bench_allocate "$iterations" >> "$log"
done
python3 scripts/bench/ffi_table.py "$log"
