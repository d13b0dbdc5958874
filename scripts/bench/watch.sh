#!/usr/bin/env bash
# `rmq-rebalance watch` at scale: every group of a loopback stand-in cluster that speaks the
# remoting protocol (remoting/examples/standin_cluster.rs: a NameServer, two brokers, running info
# relayed with a 20 ms delay), 10 clients and 16 queues a group, for each group count; prints the
# table docs/benchmarks.md shows (round times, most requests in flight, peak RSS, the running-info
# share, inspect's findings against the watch's). The driver is scripts/bench/watch_scale.py.
# Usage: scripts/bench/watch.sh [group counts... (50 500 2000)]
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --locked -q --release -p rocketmq-rebalance-cli -p rocketmq-rebalance-remoting --example standin_cluster
python3 scripts/bench/watch_scale.py target/release/examples/standin_cluster target/release/rmq-rebalance "$@"
