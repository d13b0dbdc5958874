#!/usr/bin/env bash
# Regenerates include/rocketmq_rebalance.h with the pinned cbindgen (installed into
# target/tools on first use). `--check` fails, showing the difference, when the committed header
# is not what the sources generate.
set -euo pipefail
cd "$(dirname "$0")/../.."
CBINDGEN_VERSION=0.29.0
TOOLS="$PWD/target/tools"
CBINDGEN="$TOOLS/bin/cbindgen"
if ! "$CBINDGEN" --version 2>/dev/null | grep -qx "cbindgen $CBINDGEN_VERSION"; then
    # --debug: unoptimised, it compiles in 33 s against 93 s on 2 cores (every fresh clone's test
    # command pays it) and still writes the header in under a second, byte for byte the same.
    cargo install --quiet --locked --debug --version "$CBINDGEN_VERSION" --root "$TOOLS" cbindgen
fi
HEADER=include/rocketmq_rebalance.h
if [[ "${1:-}" == "--check" ]]; then
    fresh="$(mktemp)"
    trap 'rm -f "$fresh"' EXIT
    "$CBINDGEN" --quiet --config ffi/cbindgen.toml --crate rocketmq-rebalance-ffi --output "$fresh" ffi
    diff -u "$HEADER" "$fresh" || { echo "$HEADER is stale: run scripts/lib/gen-header.sh and commit it" >&2; exit 1; }
    echo "$HEADER is up to date (cbindgen $CBINDGEN_VERSION)"
else
    "$CBINDGEN" --quiet --config ffi/cbindgen.toml --crate rocketmq-rebalance-ffi --output "$HEADER" ffi
    echo "wrote $HEADER"
fi
