#!/usr/bin/env bash
# The native artifacts of one architecture, for glibc 2.17 and later: the C library (shared and
# static), the CLI and the JNI library, in one cargo build linked by zig (cargo-zigbuild's
# `<triple>.2.17` target links against glibc 2.17's symbol versions whatever this machine's glibc).
#   x86_64:  rustup's toolchain (the one the workspace is built with).
#   aarch64: Debian's rustc-web and cargo-web (/usr/bin), whose arm64 standard library is a Debian
#            package (libstd-rust-web-dev:arm64); rustup's would need a download outside the
#            registries this project may use.
# Prints the folder that holds them. Usage: scripts/release/native.sh x86_64|aarch64
# (PATH must hold the tools of scripts/release/tools.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
arch="${1:?usage: scripts/release/native.sh x86_64|aarch64}"
triple="$arch-unknown-linux-gnu"
case "$arch" in
  x86_64) ;;
  aarch64) export PATH="$PWD/target/release-tools/debian-rust/bin:$PATH" ;;
  *) echo "no release target '$arch' (x86_64, aarch64)" >&2; exit 2 ;;
esac
# A target folder of its own per toolchain: rustup's and Debian's rustc must not share artefacts.
target_dir="target/release-build/$arch"
cargo zigbuild --locked --profile release-jar --target "$triple.2.17" --target-dir "$target_dir" \
  -p rocketmq-rebalance-c -p rocketmq-rebalance-cli -p rocketmq-rebalance-jni >&2
echo "$target_dir/$triple/release-jar"
