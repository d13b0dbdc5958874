#!/usr/bin/env bash
# Orderly consumption on a real NameServer + Broker 5.3.3 (its own process, loopback ports chosen
# at run time): SafeOrderlyConsumer (the engine over the real client) and the stock
# DefaultMQPushConsumer + MessageListenerOrderly, side by side, through a join during a slow
# listener call, a kill -9 inside a call and a graceful leave, while a producer sends keyed
# messages. The checker (tests/e2e/drivers/orderly.py) counts overlaps, lost messages, order violations
# and committed offsets moving back; the engine's must all be 0. About 4 minutes.
# Called by scripts/stages/e2e.sh (the test command); runs alone too. Logs stay in the printed directory on failure
# (and always with RMQ_KEEP_STATE=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

e2e_build cli
run_java_driver "orderly e2e" rmq-orderly orderly --rmq-rebalance "$RMQ_E2E_BUILD/rmq-rebalance"
