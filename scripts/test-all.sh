#!/usr/bin/env bash
# Builds and runs every test in every language. This is the README's test command, and .ci/run
# calls exactly this. Needs: cargo (rustup), Go 1.24+ (the Go module proxy), a JDK 17 + Maven
# (Maven Central), python3, gcc/g++, cmake, GoogleTest, valgrind and pkg-config (the linters,
# cbindgen and the Python test packages are installed by the stages).
#
# usage: scripts/test-all.sh                 every stage, in order (what CI runs)
#        scripts/test-all.sh --only STAGE...  some of them (style rust c go java e2e vectors readme python sim)
# Each stage is scripts/stages/<stage>.sh. Randomised checks print their seed; rerun one with
# RMQ_SEED=<seed> scripts/test-all.sh. The wall time of each stage is printed at the end and
# written, with the e2e scenarios' times, to target/test-times.json (docs/development.md, "The
# test command": a fresh clone's record is committed as docs/test-times.json).
set -euo pipefail
cd "$(dirname "$0")/.."
RMQ_SEED=${RMQ_SEED:-$(date +%s)}
export RMQ_SEED

stages=(style rust c go java e2e vectors readme python sim)
selected=("${stages[@]}")
if [[ ${1:-} == --only ]]; then
  shift
  [[ $# -gt 0 ]] || { echo "--only needs at least one stage: ${stages[*]}" >&2; exit 2; }
  selected=("$@")
  for stage in "${selected[@]}"; do
    [[ -f scripts/stages/$stage.sh ]] || { echo "no stage '$stage' (stages: ${stages[*]})" >&2; exit 2; }
  done
elif [[ $# -gt 0 ]]; then
  echo "usage: scripts/test-all.sh [--only STAGE...]" >&2
  exit 2
fi

timings=()
times=()
rm -rf target/test-times.d
began=$SECONDS
report() {
  printf '\n=== Stage wall times (seed %s)\n' "$RMQ_SEED"
  for t in "${timings[@]}"; do echo "  $t"; done
  printf '  %-8s %5d s\n' total $((SECONDS - began))
  mkdir -p target
  python3 scripts/lib/test_times.py write target/test-times.json "$RMQ_SEED" $((SECONDS - began)) "${times[@]}" || true
}
trap report EXIT

for stage in "${selected[@]}"; do
  summary=$(sed -n '2s/^# Stage of the test command (scripts\/test-all.sh): //p' "scripts/stages/$stage.sh")
  printf '\n=== %s: %s\n' "$stage" "$summary"
  start=$SECONDS
  if ! bash "scripts/stages/$stage.sh"; then
    timings+=("$(printf '%-8s %5d s  FAILED' "$stage" $((SECONDS - start)))")
    times+=("$stage=$((SECONDS - start)):failed")
    exit 1
  fi
  timings+=("$(printf '%-8s %5d s' "$stage" $((SECONDS - start)))")
  times+=("$stage=$((SECONDS - start)):passed")
done

if [[ ${#selected[@]} -eq ${#stages[@]} ]]; then
  printf '\n=== All test suites passed (seed %s)\n' "$RMQ_SEED"
else
  printf '\n=== Stages passed: %s (seed %s)\n' "${selected[*]}" "$RMQ_SEED"
fi
