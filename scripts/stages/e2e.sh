#!/usr/bin/env bash
# Stage of the test command (scripts/test-all.sh): a real NameServer + Broker: the orderly handoff, a mixed Go + Java group, inspect's stuck queues and a 4.9.7 broker, Spring Boot, watch and the shipped alerts in a real Prometheus, the in-JVM real-broker tests, a request that timed out in a partition never landing after it.
# The real NameServer + Broker: SafeOrderlyConsumer against DefaultMQPushConsumer
# through a join, a kill -9 and a leave; then through broker restarts and a freeze past the
# broker's expiry; then one group of rocketmq-client-go and Java consumers; then held queues
# nobody consumes (a Go revoke without unlock, a stuck orderly lock, blocked pulls), each of which
# inspect must name exactly; then inspect on a 4.9.7 NameServer, Broker and clients; then a Spring Boot
# application on our strategy by property, beside Java and Go consumers; `watch` over the whole
# cluster, and the shipped alert rules in a real Prometheus scraping it; the JUnit tests that
# start a broker in their own JVM.
# tests/e2e/README.md shows where each piece lives.
#
# Everything is built once, first; then the scenarios (tests/e2e/run/<name>.sh) run in two lanes
# side by side, each lane one scenario after another. Every scenario has its own cluster on its own
# loopback ports and mostly waits (a 140 s freeze, a 180 s soak, lock expiries), so two at a time
# on 2 cores cost little more than one. A scenario's output is printed whole when it ends, with its
# wall time; the times go to target/test-times.d/e2e.json for the test command's record.
# Runs alone too: scripts/test-all.sh --only e2e, or this file. RMQ_SEED replays random inputs.
# usage: scripts/stages/e2e.sh [SCENARIO...]   some scenarios only, in one lane
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

# Two lanes, balanced by the scenario times in docs/test-times.json (about 18 minutes each on 2
# cores), every scenario with its own cluster. Not more: the scenarios mostly wait, but their JVMs
# are not free (a third lane of brokers put the load average at 17 and the faults scenario's
# broker restart at 70 s, past the clients' 30 s lease it needs). faults restarts its broker in its
# first minutes, beside the lightest of the other lane. Two scenarios do not fit the test
# command's budget and scripts/test-long.sh runs them (docs/development.md says when and why that
# is safe): multi-broker (two broker names with master and slave, partitions, a master's kill, a
# rolling restart: about 10 minutes, 13 JVMs) and release (the x86_64 release artifacts built and
# tested as installed: no broker, but about 930 CPU-seconds of compiling).
lanes=("faults alerts orderly inspect-liveness stale-request" "watch mixed-go soak java spring broker49")
if [[ $# -gt 0 ]]; then
  for s in "$@"; do [[ -f tests/e2e/run/$s.sh ]] || { echo "no scenario '$s' (tests/e2e/run/*.sh)" >&2; exit 2; }; done
  lanes=("$*")
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rmq-e2e.XXXXXX")
RMQ_E2E_BUILD=$work/build
export RMQ_E2E_BUILD
trap 'rm -rf "$work"' EXIT
echo "-- building once for every scenario: the CLI, the jar and tests/e2e/java, the Go test consumer, the 4.9.7 cluster, the Spring Boot examples"
start=$SECONDS
e2e_build cli
e2e_install_jar
# Then two at a time: tests/e2e/java's compile beside the Go consumer, the 4.9.7 cluster and the
# Spring Boot examples (each mostly one JVM or one go command; none installs anything).
e2e_build java &
java_build=$!
e2e_build go cluster49 spring
wait "$java_build"
echo "-- built in $((SECONDS - start)) s"
# The test command runs its later stages beside the scenarios once everything is built: it waits
# for this file (scripts/test-all.sh).
[[ -z "${RMQ_E2E_BUILT:-}" ]] || touch "$RMQ_E2E_BUILT"

# One lane: its scenarios in order, each into <work>/<name>.out with its time in <name>.time; a
# lane stops at its first failure (the other lanes run on: their results are worth reading).
run_lane() {
  local lane=$1 scenario began rc
  for scenario in $2; do
    echo "-- lane $lane: $scenario started"
    began=$SECONDS
    rc=0
    bash "tests/e2e/run/$scenario.sh" > "$work/$scenario.out" 2>&1 || rc=$?
    echo "$((SECONDS - began)) $rc" > "$work/$scenario.time"
    # Whole, under a lock, so that the lanes' outputs never interleave.
    {
      flock 9
      printf '\n--- %s: %s in %d s (lane %s)\n' "$scenario" "$([[ $rc == 0 ]] && echo passed || echo FAILED)" "$((SECONDS - began))" "$lane"
      cat "$work/$scenario.out"
    } 9> "$work/print.lock"
    [[ $rc == 0 ]] || return 1
  done
}

pids=()
for i in "${!lanes[@]}"; do
  run_lane "$((i + 1))" "${lanes[$i]}" &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done

# The scenarios' wall times, for the test command's record (scripts/test-all.sh merges them).
mkdir -p target/test-times.d
python3 - "$work" "${lanes[@]}" > target/test-times.d/e2e.json <<'PY'
import json, pathlib, sys
work, lanes = pathlib.Path(sys.argv[1]), sys.argv[2:]
out = {}
for lane, names in enumerate(lanes, 1):
    for name in names.split():
        f = work / f"{name}.time"
        if f.exists():
            seconds, rc = f.read_text().split()
            out[name] = {"seconds": int(seconds), "lane": lane, "passed": rc == "0"}
print(json.dumps({"e2e_scenarios": out}, indent=1))
PY
echo
echo "=== e2e scenario wall times"
python3 - target/test-times.d/e2e.json <<'PY'
import json, sys
for name, t in json.load(open(sys.argv[1]))["e2e_scenarios"].items():
    print(f"  {name:18} {t['seconds']:5d} s  lane {t['lane']}" + ("" if t["passed"] else "  FAILED"))
PY
# A failed scenario's reason once more, last: a CI log cut to its head and tail keeps it there.
for out in "$work"/*.out; do
  name=$(basename "$out" .out)
  read -r _ rc < "$work/$name.time" 2> /dev/null || rc=1
  [[ $rc == 0 ]] && continue
  printf '\n=== %s failed: the last lines of its output\n' "$name"
  tail -n 25 "$out"
done
exit "$failed"
