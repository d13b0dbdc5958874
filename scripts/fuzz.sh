#!/usr/bin/env bash
# Fuzzes with cargo-fuzz (libFuzzer + ASan, nightly toolchain) for a number of executions (bounded
# by a time limit too) and prints the executions reached. Targets: c_api (the C entry points,
# ffi/fuzz) and decode (the remoting client's frame, header and body decoders, remoting/fuzz). Not part of the
# test command: a benchmark-style run (10 million executions of c_api take one to two hours on 2
# cores; decode is far faster). JOBS fuzzers share the corpus and split RUNS between them; the
# total is printed at the end.
# Usage: [FUZZ_MAX_LEN=4096] scripts/fuzz.sh c_api|decode [RUNS=10000000] [MAX_SECONDS=7200] [JOBS=1]
# (a smaller FUZZ_MAX_LEN gives shorter inputs and more executions a second)
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh c_api|decode [RUNS] [MAX_SECONDS] [JOBS]}
case $target in
  c_api) crate=ffi ;;
  decode) crate=remoting ;;
  *) echo "unknown fuzz target $target (c_api or decode)" >&2; exit 2 ;;
esac
runs=${2:-10000000}
seconds=${3:-7200}
jobs=${4:-1}
tools=$PWD/target/tools
if ! "$tools/bin/cargo-fuzz" --version > /dev/null 2>&1; then
  cargo install --quiet --locked --version 0.13.1 --root "$tools" cargo-fuzz
fi
cd "$crate"
mkdir -p "fuzz/corpus/$target"
RUSTUP_TOOLCHAIN=nightly "$tools/bin/cargo-fuzz" build --fuzz-dir fuzz "$target"
pids=()
for job in $(seq 1 "$jobs"); do
  RUSTUP_TOOLCHAIN=nightly "$tools/bin/cargo-fuzz" run --fuzz-dir fuzz "$target" "fuzz/corpus/$target" -- \
    -runs="$(( runs / jobs ))" -max_total_time="$seconds" -rss_limit_mb=4096 -max_len="${FUZZ_MAX_LEN:-4096}" -print_final_stats=1 \
    > "../target/fuzz-$target-$job.log" 2>&1 &
  pids+=("$!")
done
crashed=0
for pid in "${pids[@]}"; do wait "$pid" || crashed=1; done
tail -n 12 ../target/fuzz-"$target"-*.log
total=$(cat ../target/fuzz-"$target"-*.log | sed -n 's/^stat::number_of_executed_units: *//p' | paste -sd+ | bc)
if (( crashed )) || grep -l "panicked at\|==ERROR\|ERROR: libFuzzer\|deadly signal" ../target/fuzz-"$target"-*.log; then
  echo "a fuzzer found a crash: see the logs above and $crate/fuzz/artifacts/$target/ (executions before it: ${total:-0})" >&2
  exit 1
fi
echo "executions: $total over $jobs fuzzer(s), no crash"
