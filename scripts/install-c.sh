#!/usr/bin/env bash
# Builds the C library (release) and installs it for C and C++ programs:
#   PREFIX/lib/librocketmq_rebalance.so.X.Y.Z (+ .so.X.Y, .so links) and librocketmq_rebalance.a
#   PREFIX/include/rocketmq_rebalance.h, rocketmq_rebalance.hpp, rocketmq_rebalance/{strategy,engine}.hpp
#   PREFIX/lib/pkgconfig/rocketmq_rebalance.pc (shared, with an rpath) and rocketmq_rebalance-static.pc
#   PREFIX/lib/cmake/rocketmq_rebalance/rocketmq_rebalanceConfig{,Version}.cmake
# Usage: scripts/install-c.sh PREFIX
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX="$(realpath -m "${1:?usage: scripts/install-c.sh PREFIX}")"
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
MAJOR="${VERSION%%.*}"; REST="${VERSION#*.}"; MINOR="${REST%%.*}"
SOVERSION="$MAJOR.$MINOR"  # must match ffi/clib/build.rs
[[ "$MAJOR" != 0 ]] && SOVERSION="$MAJOR"

cargo build --locked --release -p rocketmq-rebalance-c
mkdir -p "$PREFIX/lib/pkgconfig" "$PREFIX/lib/cmake/rocketmq_rebalance" "$PREFIX/include/rocketmq_rebalance"
# The release profile keeps line tables (debug = 1) for profiling and benchmarks; installed copies
# drop them (13 MB -> about 1 MB for the .so), keeping the symbol table for backtraces.
install -m 0755 target/release/librocketmq_rebalance.so "$PREFIX/lib/librocketmq_rebalance.so.$VERSION"
strip --strip-debug "$PREFIX/lib/librocketmq_rebalance.so.$VERSION"
ln -sf "librocketmq_rebalance.so.$VERSION" "$PREFIX/lib/librocketmq_rebalance.so.$SOVERSION"
ln -sf "librocketmq_rebalance.so.$SOVERSION" "$PREFIX/lib/librocketmq_rebalance.so"
install -m 0644 target/release/librocketmq_rebalance.a "$PREFIX/lib/"
strip --strip-debug "$PREFIX/lib/librocketmq_rebalance.a"
install -m 0644 include/rocketmq_rebalance.h include/rocketmq_rebalance.hpp "$PREFIX/include/"
install -m 0644 include/rocketmq_rebalance/strategy.hpp include/rocketmq_rebalance/engine.hpp "$PREFIX/include/rocketmq_rebalance/"
subst() { sed -e "s|@PREFIX@|$PREFIX|g; s|@VERSION@|$VERSION|g; s|@MAJOR@|$MAJOR|g; s|@MINOR@|$MINOR|g; s|@SOVERSION@|$SOVERSION|g" "$1" > "$2"; }
subst ffi/pkg/rocketmq_rebalance.pc.in "$PREFIX/lib/pkgconfig/rocketmq_rebalance.pc"
subst ffi/pkg/rocketmq_rebalance-static.pc.in "$PREFIX/lib/pkgconfig/rocketmq_rebalance-static.pc"
subst ffi/pkg/rocketmq_rebalanceConfig.cmake "$PREFIX/lib/cmake/rocketmq_rebalance/rocketmq_rebalanceConfig.cmake"
subst ffi/pkg/rocketmq_rebalanceConfigVersion.cmake "$PREFIX/lib/cmake/rocketmq_rebalance/rocketmq_rebalanceConfigVersion.cmake"
echo "installed rocketmq_rebalance $VERSION into $PREFIX"
case "$PREFIX" in
  /usr|/usr/local) ;;
  *) echo "for pkg-config: export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig; for CMake: -DCMAKE_PREFIX_PATH=$PREFIX" ;;
esac
