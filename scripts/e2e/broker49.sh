#!/usr/bin/env bash
# `rmq-rebalance inspect` on a RocketMQ 4.9.7 NameServer, Broker and clients (tests/cluster49, one
# process; 4.9.7 is the last 4.9 broker on Maven Central): three groups judged against what their
# consumers wrote, and every field decoded checked against rocketmq-tools' DefaultMQAdminExt. The
# 4.9 servers bind every interface (their 4.9 config has no bind address); every address they and
# the test use is loopback. The driver is tests/e2e/broker49.py. Called by scripts/stages/e2e.sh;
# runs alone too (about a minute). Logs stay in the printed directory when the run fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# shellcheck source=scripts/lib/e2e-common.sh
source scripts/lib/e2e-common.sh

echo "-- building: the 4.9.7 cluster (tests/cluster49), the CLI, the admin oracle's classpath"
state=$(mktemp -d "${TMPDIR:-/tmp}/rmq-broker49.XXXXXX")
mvn -B -q -f tests/cluster49/pom.xml compile dependency:build-classpath -Dmdep.outputFile="$state/cluster49.cp" >&2
cargo build --locked -q -p rocketmq-rebalance-cli
java_cp=$(java_test_classpath "$state")
run_driver "inspect 4.9.7 e2e" "$state" 30 python3 tests/e2e/broker49.py --cluster-cp "$PWD/tests/cluster49/target/classes:$(cat "$state/cluster49.cp")" \
  --java-cp "$java_cp" --rmq-rebalance target/debug/rmq-rebalance --state "$state"
