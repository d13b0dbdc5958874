#!/usr/bin/env bash
# Builds what the Go package (bindings/go) links: the release static library of the C ABI,
# target/release/librocketmq_rebalance.a, and checks the header it includes is current. After
# this, `cd bindings/go && go test ./...` works. The package's cgo flags point at those two
# places in this checkout (bindings/go/cgo.go), so there is no flags file to generate.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --locked --release -p rocketmq-rebalance-c
scripts/lib/gen-header.sh --check
echo "built target/release/librocketmq_rebalance.a for bindings/go"
