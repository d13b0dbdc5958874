#!/usr/bin/env bash
# The release build's tools, pinned, installed under target/release-tools (nothing system-wide for
# x86_64): zig (PyPI's ziglang) as the linker that targets glibc 2.17, cargo-zigbuild to hand it
# to cargo, maturin for the wheels, auditwheel and abi3audit to check them. All five are PyPI
# wheels in one virtualenv: cargo-zigbuild's prebuilt one saves the 2-3 minutes on 2 cores that
# compiling it from crates.io took on every fresh machine.
# With --aarch64 also Debian's packages for the arm64 build (apt, as root): the arm64 standard
# library of Debian's rustc-web toolchain, binutils for arm64 and qemu-user to run what was built.
# Prints the PATH entries to use. Usage: scripts/release/tools.sh [--aarch64]
set -euo pipefail
cd "$(dirname "$0")/../.."
tools=target/release-tools
ZIGLANG=0.13.0          # zig 0.13: cargo-zigbuild's glibc-versioned targets work with it
CARGO_ZIGBUILD=0.24.1
MATURIN=1.16.0
AUDITWHEEL=6.8.2
ABI3AUDIT=0.0.26

pins=$ZIGLANG-$CARGO_ZIGBUILD-$MATURIN-$AUDITWHEEL-$ABI3AUDIT
if [[ ! -x $tools/venv/bin/cargo-zigbuild || ! -f $tools/venv/.pins-$pins ]]; then
  rm -rf "$tools/venv"
  python3 -m venv "$tools/venv"
  "$tools/venv/bin/pip" install -q --only-binary=ziglang,cargo-zigbuild,maturin "ziglang==$ZIGLANG" "cargo-zigbuild==$CARGO_ZIGBUILD" \
    "maturin==$MATURIN" "auditwheel==$AUDITWHEEL" "abi3audit==$ABI3AUDIT" >&2
  touch "$tools/venv/.pins-$pins"
fi

if [[ ${1:-} == --aarch64 ]]; then
  if ! dpkg -s libstd-rust-web-dev:arm64 qemu-user binutils-aarch64-linux-gnu > /dev/null 2>&1; then
    dpkg --add-architecture arm64
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rustc-web cargo-web libstd-rust-web-dev:arm64 \
      qemu-user binutils-aarch64-linux-gnu libc6:arm64 >&2
  fi
  # cargo and rustc by these names for the arm64 build (cargo-zigbuild and maturin call them so):
  # Debian's, put first on PATH by scripts/release/native.sh and python.sh.
  mkdir -p "$tools/debian-rust/bin"
  ln -sf /usr/bin/cargo "$tools/debian-rust/bin/cargo"
  ln -sf /usr/bin/rustc "$tools/debian-rust/bin/rustc"
fi
echo "$PWD/$tools/venv/bin"
