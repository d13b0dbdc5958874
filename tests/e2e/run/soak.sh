#!/usr/bin/env bash
# A kill -9 soak on a real NameServer + Broker 5.3.3 (two processes, loopback ports chosen at run
# time): one consumer of each group killed inside a listener call every 10-25 s and replaced,
# SafeOrderlyConsumer and the stock DefaultMQPushConsumer side by side, judged against the
# broker's own lock table (tests/e2e/drivers/soak.py). The engine's "began without the lock", overlaps,
# lost and preventable regressions must be 0.
#   tests/e2e/run/soak.sh [SECONDS]   how long the kills go on: 180 in the test command (about 5
#                                   minutes in all); the figures in docs/java.md come from 900
# RMQ_SEED replays a run's choices. Logs stay in the printed directory on failure (and always with RMQ_KEEP_STATE=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh

run_java_driver "soak e2e" rmq-soak soak --seconds "${1:-180}"
