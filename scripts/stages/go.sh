#!/usr/bin/env bash
# Stage of the test command (scripts/test-all.sh): bindings/go over the C ABI, under -race.
# Bindings/go over the C ABI: gofmt, go vet, go test -race (vectors, goroutines,
# errors, the WithStrategy adapter).
# Runs alone too: scripts/test-all.sh --only go, or this file. RMQ_SEED replays random inputs.
set -euo pipefail
cd "$(dirname "$0")/../.."
seed=${RMQ_SEED:-$(date +%s)}
scripts/build-go.sh
cd bindings/go
unformatted=$(gofmt -l .)
[[ -z "$unformatted" ]] || { echo "gofmt would change: $unformatted" >&2; exit 1; }
go vet ./...
RMQ_SEED=$seed go test -race -count=1 ./... 2>&1 | grep -v 'level=warning msg="rmqrebalance'
