#!/usr/bin/env bash
# `rmq-rebalance inspect` on a RocketMQ 4.9.7 NameServer, Broker and clients (tests/e2e/java49, one
# process; 4.9.7 is the last 4.9 broker on Maven Central): three groups judged against what their
# consumers wrote, and every field decoded checked against rocketmq-tools' DefaultMQAdminExt. The
# 4.9 servers bind every interface (their 4.9 config has no bind address); every address they and
# the test use is loopback. The driver is tests/e2e/broker49.py. Called by scripts/stages/e2e.sh;
# runs alone too (about a minute). Logs stay in the printed directory when the run fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

e2e_build cluster49 cli java
state=$(mktemp -d "${TMPDIR:-/tmp}/rmq-broker49.XXXXXX")
run_driver "inspect 4.9.7 e2e" "$state" 30 e2e_python broker49 --cluster-cp "$(cat "$RMQ_E2E_BUILD/cluster49.cp")" \
  --java-cp "$(cat "$RMQ_E2E_BUILD/java.cp")" --rmq-rebalance "$RMQ_E2E_BUILD/rmq-rebalance" --state "$state"
