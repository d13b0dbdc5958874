#!/usr/bin/env bash
# Builds the C library (release) and installs it for C and C++ programs:
#   PREFIX/lib/librocketmq_rebalance.so.X.Y.Z (+ .so.X.Y, .so links) and librocketmq_rebalance.a
#   PREFIX/include/rocketmq_rebalance.h, rocketmq_rebalance.hpp, rocketmq_rebalance/{strategy,engine}.hpp
#   PREFIX/lib/pkgconfig/rocketmq_rebalance.pc (shared, with an rpath) and rocketmq_rebalance-static.pc
#   PREFIX/lib/cmake/rocketmq_rebalance/rocketmq_rebalanceConfig{,Version}.cmake
# (scripts/lib/c-layout.sh, which the release archive shares); the tree may be moved afterwards.
# Usage: scripts/install-c.sh PREFIX
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX="$(realpath -m "${1:?usage: scripts/install-c.sh PREFIX}")"
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"

cargo build --locked --release -p rocketmq-rebalance-c
scripts/lib/c-layout.sh target/release "$PREFIX"
echo "installed rocketmq_rebalance $VERSION into $PREFIX"
case "$PREFIX" in
  /usr|/usr/local) ;;
  *) echo "for pkg-config: export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig; for CMake: -DCMAKE_PREFIX_PATH=$PREFIX" ;;
esac
