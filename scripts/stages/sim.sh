#!/usr/bin/env bash
# Stage of the test command (scripts/test-all.sh): 200 seeds of every simulator scenario, zero violations.
# 200 seeds of every shipped scenario in safe mode, with a host that signals broker restarts (as
# SafeOrderlyConsumer's watch does): zero violations, or the stage fails. A host without the signal
# is outside the host contract; its figures are in docs/simulator.md (scripts/docs/simulate-all.sh).
# Runs alone too: scripts/test-all.sh --only sim, or this file. RMQ_SEED replays random inputs.
set -euo pipefail
cd "$(dirname "$0")/../.."
seed=${RMQ_SEED:-$(date +%s)}
cargo build --locked --release -p rocketmq-rebalance-cli
first=$(( seed % 1000000000 ))
echo "seeds from $first (RMQ_SEED $seed)"
for scenario in $(target/release/rmq-rebalance simulate --list); do
  echo "-- $scenario, seeds $first..$((first + 200))"
  target/release/rmq-rebalance simulate --scenario "$scenario" --seeds "$first..$((first + 200))" --restart-signal on | grep -E "summary|violations|observed|seed"
done
echo "(the 10,000-seed figures in docs/simulator.md come from scripts/docs/simulate-all.sh)"
