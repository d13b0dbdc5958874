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
# The stages after e2e compile and run unit tests: they run in the background beside e2e's
# scenarios (which mostly wait on brokers' clocks), niced, and are printed and recorded after it
# (scripts/lib/background.sh; docs/development.md, "The test command", has the measurements).
after_e2e=()
batch=""
report() {
  if [[ -n $batch ]]; then
    scripts/lib/background.sh stop "$batch"
    rm -rf "$batch"
  fi
  printf '\n=== Stage wall times (seed %s)\n' "$RMQ_SEED"
  for t in "${timings[@]}"; do echo "  $t"; done
  printf '  %-8s %5d s\n' total $((SECONDS - began))
  mkdir -p target
  python3 scripts/lib/test_times.py write target/test-times.json "$RMQ_SEED" $((SECONDS - began)) "${times[@]}" || true
}
trap report EXIT

# Records one stage's result; a failed stage ends the test command.
finished() {
  local stage=$1 seconds=$2 rc=$3 note=${4:-}
  if [[ $rc != 0 ]]; then
    timings+=("$(printf '%-8s %5d s  FAILED%s' "$stage" "$seconds" "$note")")
    times+=("$stage=$seconds:failed")
    exit 1
  fi
  timings+=("$(printf '%-8s %5d s%s' "$stage" "$seconds" "$note")")
  times+=("$stage=$seconds:passed")
}

header() {
  local summary
  summary=$(sed -n '2s/^# Stage of the test command (scripts\/test-all.sh): //p' "scripts/stages/$1.sh")
  printf '\n=== %s%s: %s\n' "$1" "${2:-}" "$summary"
}

for stage in "${selected[@]}"; do
  if [[ $stage == e2e ]]; then
    # Everything selected after e2e is the background batch, started with e2e.
    seen=false
    for later in "${selected[@]}"; do
      $seen && after_e2e+=("$later")
      [[ $later == e2e ]] && seen=true
    done
    if [[ ${#after_e2e[@]} -gt 0 ]]; then
      batch=$(mktemp -d "${TMPDIR:-/tmp}/rmq-after-e2e.XXXXXX")
      scripts/lib/background.sh start "$batch" scripts/lib/run-stages.sh "$batch/stages" "${after_e2e[@]}"
    fi
  fi
  header "$stage"
  [[ -n $batch ]] && echo "(beside it, in the background at the lowest priority: ${after_e2e[*]})"
  start=$SECONDS
  rc=0
  bash "scripts/stages/$stage.sh" || rc=$?
  finished "$stage" $((SECONDS - start)) "$rc"
  [[ $stage == e2e ]] && break
done

if [[ -n $batch ]]; then
  echo
  echo "-- waiting for the stages run beside e2e: ${after_e2e[*]}"
  scripts/lib/background.sh wait "$batch"
  for stage in "${after_e2e[@]}"; do
    [[ -f $batch/stages/$stage.time ]] || break
    header "$stage" " (beside e2e)"
    cat "$batch/stages/$stage.out"
    read -r seconds rc < "$batch/stages/$stage.time"
    finished "$stage" "$seconds" "$rc" "  (beside e2e)"
  done
  read -r _ rc < "$batch/time"
  [[ $rc == 0 ]] || { cat "$batch/out"; exit 1; }
fi

if [[ ${#selected[@]} -eq ${#stages[@]} ]]; then
  printf '\n=== All test suites passed (seed %s)\n' "$RMQ_SEED"
else
  printf '\n=== Stages passed: %s (seed %s)\n' "${selected[*]}" "$RMQ_SEED"
fi
