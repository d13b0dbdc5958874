#!/usr/bin/env bash
# The C/C++ archive of one architecture, OUT_DIR/c/rocketmq-rebalance-<v>-linux-<arch>.tar.gz:
# include/, lib/ (shared and static), lib/pkgconfig and lib/cmake, relocatable
# (scripts/lib/c-layout.sh); and the CLI, OUT_DIR/cli/rmq-rebalance-<v>-linux-<arch>. Prints both paths.
# Usage: scripts/release/c.sh x86_64|aarch64 BUILT_DIR OUT_DIR  (BUILT_DIR from scripts/release/native.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
arch="${1:?usage: scripts/release/c.sh ARCH BUILT_DIR OUT_DIR}"
built="${2:?usage: scripts/release/c.sh ARCH BUILT_DIR OUT_DIR}"
out="$(realpath -m "${3:?usage: scripts/release/c.sh ARCH BUILT_DIR OUT_DIR}")"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
name="rocketmq-rebalance-$version-linux-$arch"
stage="target/release-stage/$name"
rm -rf "$stage"
strip_tool="strip"
[[ $arch == aarch64 ]] && strip_tool=aarch64-linux-gnu-strip
STRIP=$strip_tool scripts/lib/c-layout.sh "$built" "$stage" > /dev/null
mkdir -p "$out/c" "$out/cli"
# Reproducible: sorted names, one owner and one time (the commit's).
mtime="@$(git log -1 --format=%ct 2>/dev/null || echo 0)"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="$mtime" -C "$(dirname "$stage")" -czf "$out/c/$name.tar.gz" "$name"
install -m 0755 "$built/rmq-rebalance" "$out/cli/rmq-rebalance-$version-linux-$arch"
echo "$out/c/$name.tar.gz"
echo "$out/cli/rmq-rebalance-$version-linux-$arch"
