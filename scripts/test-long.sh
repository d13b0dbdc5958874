#!/usr/bin/env bash
# The real-cluster scenarios too long for the test command's 40 minutes, run before each stop whose
# change touches the engine (core/src/engine/) or the JVM consumer (bindings/java/consumer/):
# today tests/e2e/run/multi-broker.sh, two broker names each a master and a slave, partitions, a
# master's kill and a rolling restart (about 10 minutes, 13 JVMs, 2.5 GB). docs/development.md
# says why running it here and not in CI is safe. Prints each scenario's wall time; fails on the
# first scenario that fails (its logs are kept and named).
#   scripts/test-long.sh [SCENARIO...]   (default: every long scenario)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

scenarios=("${@:-multi-broker}")
work=$(mktemp -d "${TMPDIR:-/tmp}/rmq-long.XXXXXX")
RMQ_E2E_BUILD=$work/build
export RMQ_E2E_BUILD
trap 'rm -rf "$work"' EXIT
e2e_build java
for scenario in "${scenarios[@]}"; do
  began=$SECONDS
  echo "-- $scenario"
  bash "tests/e2e/run/$scenario.sh"
  echo "-- $scenario passed in $((SECONDS - began)) s"
done
