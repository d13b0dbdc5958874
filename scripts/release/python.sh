#!/usr/bin/env bash
# The wheel of one architecture: abi3 (one wheel for CPython 3.9 and later), linked by zig against
# glibc 2.17 (maturin --zig with the manylinux2014 policy), stripped. Prints the wheel's path.
# Built in scripts/release/native.sh's target folder and profile (release-jar: optimised, no debug
# info, stripped). Most dependencies are still compiled again: maturin's cargo call resolves
# features for the Python crate alone, so their hashes differ from the native build's.
# Usage: scripts/release/python.sh x86_64|aarch64 OUT_DIR  (PATH from scripts/release/tools.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
arch="${1:?usage: scripts/release/python.sh x86_64|aarch64 OUT_DIR}"
out="$(realpath -m "${2:?usage: scripts/release/python.sh x86_64|aarch64 OUT_DIR}")"
# aarch64 builds with Debian's toolchain (scripts/release/native.sh says why).
[[ $arch == aarch64 ]] && export PATH="$PWD/target/release-tools/debian-rust/bin:$PATH"
mkdir -p "$out"
before=$(ls "$out")
maturin build --locked --profile release-jar --strip --zig --compatibility manylinux2014 --target "$arch-unknown-linux-gnu" \
  -m bindings/python/Cargo.toml -o "$out" --target-dir "target/release-build/$arch" >&2
comm -13 <(echo "$before") <(ls "$out") | sed "s|^|$out/|"
