#!/usr/bin/env bash
# The Go package against the Go client's own strategies, side by side in one run: AVG,
# AVG_BY_CIRCLE and CONSISTENT_HASH at (16, 4), (1,000, 100) and (100,000, 1,000), each measured
# COUNT times (alternating), medians; prints the table docs/go.md shows. Not in the test command.
# Usage: scripts/bench/go.sh [COUNT=5]
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-5}
scripts/build-go.sh > /dev/null
(cd bindings/go && go test -run '^$' -bench . -benchtime 300ms -count "$count" . 2>/dev/null) | python3 scripts/bench/go_table.py
