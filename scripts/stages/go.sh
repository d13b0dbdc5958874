#!/usr/bin/env bash
# Stage of the test command (scripts/test-all.sh): bindings/go over the C ABI, under -race.
# Bindings/go over the C ABI: gofmt, go vet, go test -race (vectors, goroutines,
# errors, the WithStrategy adapter), and the Go client's own strategies regenerated (tests/vectors/go-data).
# Runs alone too: scripts/test-all.sh --only go, or this file. RMQ_SEED replays random inputs.
set -euo pipefail
cd "$(dirname "$0")/../.."
seed=${RMQ_SEED:-$(date +%s)}
scripts/build-go.sh
# The release's module zip writer (scripts/release/gomodzip), its own module: formatted and vetted.
unformatted=$(gofmt -l scripts/release/gomodzip)
[[ -z "$unformatted" ]] || { echo "gofmt would change: $unformatted" >&2; exit 1; }
(cd scripts/release/gomodzip && go vet ./...)
cd bindings/go
unformatted=$(gofmt -l .)
[[ -z "$unformatted" ]] || { echo "gofmt would change: $unformatted" >&2; exit 1; }
go vet ./...
RMQ_SEED=$seed go test -race -count=1 ./... 2>&1 | grep -v 'level=warning msg="rmqrebalance'
# rocketmq-client-go's own strategies on the Java cases' inputs (what `inspect` judges Go clients
# by): regenerated from the real Go client and compared with the committed answers.
go_vectors=$(mktemp -d)
trap 'rm -rf "$go_vectors"' EXIT
go run ./cmd/go-vectors ../../tests/vectors/data "$go_vectors" 2>/dev/null
diff -r -q ../../tests/vectors/go-data "$go_vectors"
echo "committed Go vectors reproduced by rocketmq-client-go $(go list -m -f '{{.Version}}' github.com/apache/rocketmq-client-go/v2)"
# The real-broker scenarios' Go consumer, a module of its own (outside the published one).
cd ../../tests/e2e/go
unformatted=$(gofmt -l .)
[[ -z "$unformatted" ]] || { echo "gofmt would change: $unformatted" >&2; exit 1; }
go vet ./...
echo "tests/e2e/go: formatted and vetted"
