#!/usr/bin/env bash
# Lays the built C library out under a prefix, as scripts/install-c.sh installs it and as the
# release archive ships it (scripts/release/c.sh):
#   PREFIX/lib/librocketmq_rebalance.so.X.Y.Z (+ .so.X.Y, .so links) and librocketmq_rebalance.a
#   PREFIX/include/rocketmq_rebalance.h, rocketmq_rebalance.hpp, rocketmq_rebalance/{strategy,engine}.hpp
#   PREFIX/lib/pkgconfig/rocketmq_rebalance.pc (shared, with an rpath) and rocketmq_rebalance-static.pc
#   PREFIX/lib/cmake/rocketmq_rebalance/rocketmq_rebalanceConfig{,Version}.cmake
# Every file finds the prefix from its own place (pkg-config's ${pcfiledir}, CMake's
# CMAKE_CURRENT_LIST_DIR), so the tree works wherever it is moved or unpacked.
# Usage: scripts/lib/c-layout.sh BUILT_DIR PREFIX   (BUILT_DIR holds librocketmq_rebalance.{so,a});
# STRIP names the strip of the library's architecture (default: strip).
set -euo pipefail
cd "$(dirname "$0")/../.."
built="${1:?usage: scripts/lib/c-layout.sh BUILT_DIR PREFIX}"
PREFIX="$(realpath -m "${2:?usage: scripts/lib/c-layout.sh BUILT_DIR PREFIX}")"
strip_tool="${STRIP:-strip}"
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
MAJOR="${VERSION%%.*}"; REST="${VERSION#*.}"; MINOR="${REST%%.*}"
SOVERSION="$MAJOR.$MINOR"  # must match ffi/clib/build.rs
[[ "$MAJOR" != 0 ]] && SOVERSION="$MAJOR"

mkdir -p "$PREFIX/lib/pkgconfig" "$PREFIX/lib/cmake/rocketmq_rebalance" "$PREFIX/include/rocketmq_rebalance"
# The release profile keeps line tables (debug = 1) for profiling and benchmarks; laid-out copies
# drop them (13 MB -> about 1 MB for the .so), keeping the symbol table for backtraces.
install -m 0755 "$built/librocketmq_rebalance.so" "$PREFIX/lib/librocketmq_rebalance.so.$VERSION"
"$strip_tool" --strip-debug "$PREFIX/lib/librocketmq_rebalance.so.$VERSION"
ln -sf "librocketmq_rebalance.so.$VERSION" "$PREFIX/lib/librocketmq_rebalance.so.$SOVERSION"
ln -sf "librocketmq_rebalance.so.$SOVERSION" "$PREFIX/lib/librocketmq_rebalance.so"
install -m 0644 "$built/librocketmq_rebalance.a" "$PREFIX/lib/"
"$strip_tool" --strip-debug "$PREFIX/lib/librocketmq_rebalance.a"
install -m 0644 include/rocketmq_rebalance.h include/rocketmq_rebalance.hpp "$PREFIX/include/"
install -m 0644 include/rocketmq_rebalance/strategy.hpp include/rocketmq_rebalance/engine.hpp "$PREFIX/include/rocketmq_rebalance/"
subst() { sed -e "s|@VERSION@|$VERSION|g; s|@MAJOR@|$MAJOR|g; s|@MINOR@|$MINOR|g; s|@SOVERSION@|$SOVERSION|g" "$1" > "$2"; }
subst ffi/pkg/rocketmq_rebalance.pc.in "$PREFIX/lib/pkgconfig/rocketmq_rebalance.pc"
subst ffi/pkg/rocketmq_rebalance-static.pc.in "$PREFIX/lib/pkgconfig/rocketmq_rebalance-static.pc"
subst ffi/pkg/rocketmq_rebalanceConfig.cmake "$PREFIX/lib/cmake/rocketmq_rebalance/rocketmq_rebalanceConfig.cmake"
subst ffi/pkg/rocketmq_rebalanceConfigVersion.cmake "$PREFIX/lib/cmake/rocketmq_rebalance/rocketmq_rebalanceConfigVersion.cmake"
