#!/usr/bin/env bash
# Handoff time through a rolling restart: SafeOrderlyConsumer against DefaultMQPushConsumer +
# MessageListenerOrderly, side by side on one real NameServer + Broker 5.3.3 (loopback ports
# chosen at run time), four consumers per side replaced one by one while producers send; prints
# p50 / p99 / max of the seconds between a queue's old owner's last listener call and its new
# owner's first, and the safety counts (the engine's must be 0, or the script fails). The driver
# is tests/e2e/drivers/rolling.py; docs/benchmarks.md shows the table. About 4 minutes.
# Usage: scripts/bench/handoff.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tests/e2e/run/common.sh
source tests/e2e/run/common.sh
run_java_driver "rolling restart" rmq-handoff rolling
