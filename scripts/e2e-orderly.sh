#!/usr/bin/env bash
# Orderly consumption on a real NameServer + Broker 5.3.3 (its own process, loopback ports chosen
# at run time): SafeOrderlyConsumer (the engine over the real client) and the stock
# DefaultMQPushConsumer + MessageListenerOrderly, side by side, through a join during a slow
# listener call, a kill -9 inside a call and a graceful leave, while a producer sends keyed
# messages. The checker (tests/e2e/orderly.py) counts overlaps, lost messages, order violations
# and committed offsets moving back; the engine's must all be 0. About 4 minutes.
# Called by scripts/test-all.sh; runs alone too. Logs stay in the printed directory on failure
# (and always with RMQ_KEEP_STATE=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

echo "-- building: the jar's classes, the test processes and their classpath"
state=$(mktemp -d "${TMPDIR:-/tmp}/rmq-orderly.XXXXXX")
(cd bindings/java && mvn -B -q test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$state/classpath")
java_cp="$root/bindings/java/target/classes:$root/bindings/java/target/test-classes:$(cat "$state/classpath")"

if python3 tests/e2e/orderly.py --java-cp "$java_cp" --state "$state"; then
  if [[ "${RMQ_KEEP_STATE:-0}" == 1 ]]; then echo "state kept in $state"; else rm -rf "$state"; fi
else
  echo "orderly e2e failed; logs in $state" >&2
  for log in "$state"/cluster.log "$state"/*/*.log; do
    [[ -f "$log" ]] && { echo "== $log"; tail -n 15 "$log"; }
  done >&2
  exit 1
fi
