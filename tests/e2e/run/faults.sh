#!/usr/bin/env bash
# The faults real clusters have, on a real NameServer + Broker 5.3.3 (two processes, loopback ports
# chosen at run time): the broker is killed (SIGKILL) twice and started again on the same store and
# ports, the second time with a consumer joining as it comes back; then a consumer is frozen
# (SIGSTOP) inside a listener call for 140 s, past the broker's channel expiry. SafeOrderlyConsumer
# with its broker watch, the same without it (the control), and the stock DefaultMQPushConsumer
# side by side. The checker (tests/e2e/drivers/faults.py) judges every listener call against the broker's
# own lock table; the engine's "began without the lock", overlaps, lost and preventable regressions
# must be 0. About 8 minutes. Called by scripts/stages/e2e.sh (the test command); runs alone too.
# Logs stay in the printed directory on failure (and always with RMQ_KEEP_STATE=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

run_java_driver "faults e2e" rmq-faults faults
