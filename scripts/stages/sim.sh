#!/usr/bin/env bash
# Stage of the test command (scripts/test-all.sh): 200 seeds of every simulator scenario, zero violations.
# 200 seeds of every shipped scenario in safe mode: zero violations with a host that signals broker restarts; one that does not is shown beside it.
# Runs alone too: scripts/test-all.sh --only sim, or this file. RMQ_SEED replays random inputs.
set -euo pipefail
cd "$(dirname "$0")/../.."
seed=${RMQ_SEED:-$(date +%s)}
cargo build --locked --release -p rocketmq-rebalance-cli
first=$(( seed % 1000000000 ))
echo "seeds from $first (RMQ_SEED $seed)"
# Both hosts: one that signals broker restarts (SafeOrderlyConsumer's watch), which must keep every
# invariant, and one that does not, outside the host contract, whose violations are shown, not failed.
for scenario in $(target/release/rmq-rebalance simulate --list); do
  for signal in on off; do
    echo "-- $scenario, seeds $first..$((first + 200)), restart signal $signal"
    target/release/rmq-rebalance simulate --scenario "$scenario" --seeds "$first..$((first + 200))" --restart-signal "$signal" | grep -E "summary|violations|observed|seed"
  done
done
echo "(the 10,000-seed figures in docs/simulator.md come from scripts/docs/simulate-all.sh)"
