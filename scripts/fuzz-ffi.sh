#!/usr/bin/env bash
# Fuzzes the C entry points with cargo-fuzz (libFuzzer + ASan, nightly toolchain) for a number of
# executions (bounded by a time limit too) and prints the executions reached. Not part of the test
# command: a benchmark-style run (10 million executions take one to two hours on 2 cores).
# JOBS fuzzers share the corpus and split RUNS between them; the total is printed at the end.
# Usage: [FUZZ_MAX_LEN=4096] scripts/fuzz-ffi.sh [RUNS=10000000] [MAX_SECONDS=7200] [JOBS=1]
# (a smaller FUZZ_MAX_LEN gives shorter op sequences and more executions a second)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10000000}
seconds=${2:-7200}
jobs=${3:-1}
tools=$PWD/target/tools
if ! "$tools/bin/cargo-fuzz" --version > /dev/null 2>&1; then
  cargo install --quiet --locked --version 0.13.1 --root "$tools" cargo-fuzz
fi
cd ffi
mkdir -p fuzz/corpus/c_api
RUSTUP_TOOLCHAIN=nightly "$tools/bin/cargo-fuzz" build --fuzz-dir fuzz c_api
pids=()
for job in $(seq 1 "$jobs"); do
  RUSTUP_TOOLCHAIN=nightly "$tools/bin/cargo-fuzz" run --fuzz-dir fuzz c_api fuzz/corpus/c_api -- \
    -runs="$(( runs / jobs ))" -max_total_time="$seconds" -rss_limit_mb=4096 -max_len="${FUZZ_MAX_LEN:-4096}" -print_final_stats=1 \
    > "../target/fuzz-ffi-$job.log" 2>&1 &
  pids+=("$!")
done
crashed=0
for pid in "${pids[@]}"; do wait "$pid" || crashed=1; done
tail -n 12 ../target/fuzz-ffi-*.log
total=$(cat ../target/fuzz-ffi-*.log | sed -n 's/^stat::number_of_executed_units: *//p' | paste -sd+ | bc)
if (( crashed )) || grep -l "panicked at\|==ERROR\|ERROR: libFuzzer\|deadly signal" ../target/fuzz-ffi-*.log; then
  echo "a fuzzer found a crash: see the logs above and fuzz/artifacts/c_api/ (executions before it: ${total:-0})" >&2
  exit 1
fi
echo "executions: $total over $jobs fuzzer(s), no crash"
