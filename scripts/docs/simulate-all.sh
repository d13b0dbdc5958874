#!/usr/bin/env bash
# Runs every shipped simulator scenario over SEEDS seeds (default 10000) in safe semantics (with a
# host that signals broker restarts and with one that does not) and in java semantics, keeps the JSON summaries in target/sim-results/, and prints the table of docs/simulator.md.
#   scripts/docs/simulate-all.sh [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=${1:-10000}
out=target/sim-results
mkdir -p "$out"
cargo build --locked --release -q -p rocketmq-rebalance-cli
sim=target/release/rmq-rebalance
mapfile -t scenarios < <("$sim" simulate --list)
status=0
# Three hosts: safe semantics whose host signals broker restarts (SafeOrderlyConsumer with its
# broker watch), safe semantics whose host does not (the watch off, or a host without one), and
# java semantics (the Java client: never signals).
for scenario in "${scenarios[@]}"; do
  for variant in safe safe-nosignal java; do
    case $variant in
      safe) flags=(--semantics safe --restart-signal on) ;;
      safe-nosignal) flags=(--semantics safe --restart-signal off) ;;
      java) flags=(--semantics java) ;;
    esac
    # java mode is expected to violate invariants: its exit status is not a failure here.
    if ! nice -n 10 "$sim" simulate --scenario "$scenario" --seeds "$seeds" "${flags[@]}" --json > "$out/$scenario-$variant.json"; then
      [ "$variant" != java ] && status=1
    fi
  done
done
python3 scripts/docs/sim_table.py "$out" "${scenarios[@]}"
exit $status
