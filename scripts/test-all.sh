#!/usr/bin/env bash
# Builds and runs every test in every language. This is the README's test command, and .ci/run
# calls exactly this. Needs: cargo (rustup), Go 1.24+ (the Go module proxy), a JDK 17 + Maven
# (Maven Central), python3, gcc/g++, cmake, GoogleTest, valgrind and pkg-config (the linters,
# cbindgen and the Python test packages are installed by the stages).
#
# usage: scripts/test-all.sh                 every stage, in order (what CI runs)
#        scripts/test-all.sh --only STAGE...  some of them (style java e2e rust c go vectors readme python sim)
# Each stage is scripts/stages/<stage>.sh. Randomised checks print their seed; rerun one with
# RMQ_SEED=<seed> scripts/test-all.sh. The wall time of each stage is printed at the end and
# written, with the e2e scenarios' times, to target/test-times.json (docs/development.md, "The
# test command": a fresh clone's record is committed as docs/test-times.json).
set -euo pipefail
cd "$(dirname "$0")/.."
RMQ_SEED=${RMQ_SEED:-$(date +%s)}
export RMQ_SEED

stages=(style java e2e rust c go vectors readme python sim)
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
mkdir -p target
began=$SECONDS
report() {
  printf '\n=== Stage wall times (seed %s)\n' "$RMQ_SEED"
  for t in "${timings[@]}"; do echo "  $t"; done
  printf '  %-8s %5d s\n' total $((SECONDS - began))
  python3 scripts/lib/test_times.py write target/test-times.json "$RMQ_SEED" $((SECONDS - began)) "${times[@]}" || true
}
trap report EXIT

# A stage's wall time and status, for the report and the record.
record() {
  local stage=$1 seconds=$2 rc=$3 note=${4:-}
  timings+=("$(printf '%-8s %5d s%s%s' "$stage" "$seconds" "$note" "$([[ $rc == 0 ]] || echo '  FAILED')")")
  times+=("$stage=$seconds:$([[ $rc == 0 ]] && echo passed || echo failed)")
}

# The e2e scenarios mostly wait on their clusters (a 140 s freeze, a 180 s soak, lock expiries), so
# once e2e has built what they run, the stages after it run beside them, at the lowest CPU and I/O
# priority: the scenarios' brokers and clients get the CPU whenever they want it, and the stages
# take what is left. The scenarios run copies of what they need (their build folder), ports below
# the ephemeral range, and no stage after e2e installs into the Maven repository they read from.
# e2e's output is kept and printed whole when it ends, after the other stages'.
# RMQ_E2E_BESIDE=0 runs every stage one after another, as before.
e2e_pid=""
e2e_log=target/e2e-stage.log
e2e_result=target/e2e-stage.result
later=()
failed=0
for stage in "${selected[@]}"; do
  summary=$(sed -n '2s/^# Stage of the test command (scripts\/test-all.sh): //p' "scripts/stages/$stage.sh")
  printf '\n=== %s: %s\n' "$stage" "$summary"
  if [[ $stage == e2e && ${RMQ_E2E_BESIDE:-1} != 0 && $stage != "${selected[-1]}" ]]; then
    rm -f "$e2e_result" target/e2e-built
    (
      start=$SECONDS
      rc=0
      RMQ_E2E_BUILT=$PWD/target/e2e-built bash scripts/stages/e2e.sh > "$e2e_log" 2>&1 || rc=$?
      echo "$((SECONDS - start)) $rc" > "$e2e_result"
    ) &
    e2e_pid=$!
    # Nothing runs beside e2e's own build (cargo, Maven and go at full priority).
    while [[ ! -f target/e2e-built ]] && kill -0 "$e2e_pid" 2> /dev/null; do sleep 2; done
    echo "(built; its scenarios run beside the stages below, at full priority; their output follows them)"
    later=(nice -n 19 ionice -c 3)
    continue
  fi
  start=$SECONDS
  rc=0
  "${later[@]}" bash "scripts/stages/$stage.sh" || rc=$?
  record "$stage" $((SECONDS - start)) "$rc" "$([[ ${#later[@]} -eq 0 ]] || echo '  (beside e2e)')"
  if [[ $rc != 0 ]]; then
    failed=1
    break
  fi
done

if [[ -n $e2e_pid ]]; then
  [[ $failed == 0 ]] || echo "(a stage failed: waiting for the e2e scenarios, whose results are worth reading)"
  wait "$e2e_pid" || true
  printf '\n=== e2e (ran beside the stages after it): its output\n'
  cat "$e2e_log"
  read -r seconds rc < "$e2e_result" || { seconds=$((SECONDS - began)) && rc=1; }
  record e2e "$seconds" "$rc"
  [[ $rc == 0 ]] || failed=1
fi
[[ $failed == 0 ]] || exit 1

if [[ ${#selected[@]} -eq ${#stages[@]} ]]; then
  printf '\n=== All test suites passed (seed %s)\n' "$RMQ_SEED"
else
  printf '\n=== Stages passed: %s (seed %s)\n' "${selected[*]}" "$RMQ_SEED"
fi
