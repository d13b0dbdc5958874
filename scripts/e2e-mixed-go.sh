#!/usr/bin/env bash
# Go and Java push consumers in one consumer group on a real NameServer + Broker 5.3.3 (its own
# process, loopback ports chosen at run time): with this project's strategies every queue has
# exactly one owner across both languages and every message is consumed, through a Go consumer
# joining and one leaving; with each client's own consistent hash, the script counts queues with
# no owner or two, and messages left unconsumed. The driver is tests/e2e/mixed_group.py.
# Called by scripts/test-all.sh; runs alone too (about 3 minutes). Logs stay in the printed
# directory when the run fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

echo "-- building: the Go test consumer (bindings/go/e2e/consumer), the Java test classes and their classpath"
scripts/build-go.sh > /dev/null
state=$(mktemp -d "${TMPDIR:-/tmp}/rmq-mixed.XXXXXX")
(cd bindings/go && go build -o "$state/go-consumer" ./e2e/consumer)
(cd bindings/java && mvn -B -q test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$state/classpath")
java_cp="$root/bindings/java/target/classes:$root/bindings/java/target/test-classes:$(cat "$state/classpath")"

if python3 tests/e2e/mixed_group.py --java-cp "$java_cp" --go-consumer "$state/go-consumer" --state "$state"; then
  rm -rf "$state"
else
  echo "mixed group e2e failed; logs in $state" >&2
  for log in "$state"/cluster.log "$state"/*/*.log; do
    [[ -f "$log" ]] && { echo "== $log"; tail -n 20 "$log"; }
  done >&2
  exit 1
fi
