#!/usr/bin/env bash
# The scenarios too long for the test command's 40 minutes (docs/development.md, "The test
# command", says when each must run and why running it here and not in CI is safe):
#   multi-broker  tests/e2e/run/multi-broker.sh: two broker names each a master and a slave,
#                 partitions, a master's kill and a rolling restart (about 10 minutes, 13 JVMs,
#                 2.5 GB); before each stop whose change touches the engine (core/src/engine/) or
#                 the JVM consumer (bindings/java/consumer/)
#   release       tests/e2e/run/release.sh: the x86_64 release artifacts built (glibc 2.17) and
#                 tested as installed (about 10 minutes, 930 CPU-seconds); before each stop whose
#                 change touches what ships or how it is built (the list is docs/development.md's)
# Prints each scenario's wall time; fails on the first scenario that fails (its logs are kept and
# named).
#   scripts/test-long.sh [SCENARIO...]   (default: every long scenario)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

[[ $# -gt 0 ]] || set -- multi-broker release
scenarios=("$@")
work=$(mktemp -d "${TMPDIR:-/tmp}/rmq-long.XXXXXX")
RMQ_E2E_BUILD=$work/build
export RMQ_E2E_BUILD
trap 'rm -rf "$work"' EXIT
for scenario in "${scenarios[@]}"; do
  began=$SECONDS
  echo "-- $scenario"
  bash "tests/e2e/run/$scenario.sh"
  echo "-- $scenario passed in $((SECONDS - began)) s"
done
