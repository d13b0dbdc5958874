#!/usr/bin/env bash
# Stage of the test command (scripts/test-all.sh): the pure-Rust crates' tests, and the vectors on every MD5 path; deploy/ in promtool, the pages in Chromium, watch through faults.
# Unit, conformance-vector, property, engine, simulator and CLI tests, then the
# conformance vectors on every MD5 path the CPU has.
# Runs alone too: scripts/test-all.sh --only rust, or this file. RMQ_SEED replays random inputs.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The default members are the pure-Rust crates; the bindings are built and tested by their stages.
cargo test --locked
# The conformance vectors again on every other MD5 path this CPU can run (the run above used
# the best one); the batch tests above already compared every path with scalar digests.
for md5_path in $(cargo run --locked -q -p rocketmq-rebalance --example md5_paths); do
  echo "conformance vectors on MD5 path $md5_path"
  RMQ_REBALANCE_MD5=$md5_path cargo test --locked -q -p rocketmq-rebalance --test conformance
done
# deploy/ checked by the real promtool (Debian's, unpacked under target/tools): the rules, every
# dashboard and KEDA expression, the rule tests recorded from the alert e2e, and the metrics
# `watch` serves, against the metric contract.
promtool_dir=$(bash scripts/lib/install-prometheus.sh)
python3 scripts/lib/check_deploy.py "$promtool_dir/promtool" target/debug/rmq-rebalance
# The pages `watch` serves, read in a real headless Chromium (Debian's, unpacked under target/tools).
chromium=$(bash scripts/lib/install-chromium.sh)
python3 scripts/lib/check_page.py "$chromium" target/debug/rmq-rebalance
# `watch` through faults (a NameServer or broker hung, refusing or answering garbage, a client that
# never answers, a group deleted, SIGTERM), against the loopback stand-in cluster.
cargo build --locked -q -p rocketmq-rebalance-remoting --example standin_cluster
python3 scripts/lib/check_watch_faults.py target/debug/examples/standin_cluster target/debug/rmq-rebalance
