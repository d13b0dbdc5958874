#!/usr/bin/env bash
# Builds what users install, for Linux x86_64 and aarch64 with glibc 2.17 or later, into dist/
# (docs/install.md lists each artifact, its size and how it is tested):
#   python/  rocketmq_rebalance-<v>-cp39-abi3-manylinux2014_<arch>.manylinux_2_17_<arch>.whl, and the sdist
#   c/       rocketmq-rebalance-<v>-linux-<arch>.tar.gz (include/, lib/ shared and static, pkg-config, CMake)
#   cli/     rmq-rebalance-<v>-linux-<arch>
#   maven/   a Maven repository: the strategies jar (a JNI library per architecture), the consumer, the starter
#   goproxy/ the Go module with prebuilt static libraries, as a module proxy serves it
#   SHA256SUMS over all of it
# Usage: scripts/release.sh [--target x86_64|aarch64|all] [--verify] [--out DIR]
#   --target  x86_64 (the default) or all: aarch64 needs Debian's arm64 packages, which
#             scripts/release/tools.sh installs with apt (root)
#   --verify  then tests every artifact as a user installs it (scripts/release/verify.sh); aarch64
#             ones run under qemu-user
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64
verify=false
out=dist
while [[ $# -gt 0 ]]; do
  case "$1" in
    --target) target="${2:?--target needs x86_64, aarch64 or all}"; shift 2 ;;
    --verify) verify=true; shift ;;
    --out) out="${2:?--out needs a folder}"; shift 2 ;;
    *) echo "usage: scripts/release.sh [--target x86_64|aarch64|all] [--verify] [--out DIR]" >&2; exit 2 ;;
  esac
done
case "$target" in
  x86_64|aarch64) arches=("$target") ;;
  all) arches=(x86_64 aarch64) ;;
  *) echo "no release target '$target' (x86_64, aarch64, all)" >&2; exit 2 ;;
esac
out="$(realpath -m "$out")"
scripts/lib/check-versions.sh > /dev/null

# Each step's wall time, printed as it ends (docs/install.md reports them per target).
mark=$SECONDS
took() { echo "   $1: $((SECONDS - mark)) s"; mark=$SECONDS; }
aarch64_tools=()
[[ " ${arches[*]} " == *" aarch64 "* ]] && aarch64_tools=(--aarch64)
PATH="$(scripts/release/tools.sh "${aarch64_tools[@]}"):$PATH"
export PATH

took "tools"
rm -rf "$out"
mkdir -p "$out"
built=()
for arch in "${arches[@]}"; do
  echo "== $arch: the C library, the CLI and the JNI library (glibc 2.17)"
  dir="$(scripts/release/native.sh "$arch")"
  built+=("$arch=$dir")
  scripts/release/c.sh "$arch" "$dir" "$out" > /dev/null
  took "$arch native build"
  echo "== $arch: the wheel"
  scripts/release/python.sh "$arch" "$out/python" > /dev/null
  took "$arch wheel"
done
echo "== the sdist"
maturin sdist -m bindings/python/Cargo.toml -o "$out/python" > /dev/null
echo "== Java: the jars and their poms, into a Maven file repository"
scripts/release/java.sh "$out" "${built[@]}" > /dev/null
took "jars"
echo "== Go: the module with its prebuilt libraries, as a module proxy serves it"
scripts/release/go.sh "$out" "${built[@]}" > /dev/null
took "Go module"
files=$(cd "$out" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
(cd "$out" && xargs sha256sum <<< "$files" > SHA256SUMS)
echo "== dist/ ($out)"
(cd "$out" && find python c cli -type f -printf '%s\t%p\n' | LC_ALL=C sort -k2 | awk -F'\t' '{printf "  %-80s %6.1f MiB\n", $2, $1 / 1048576}')
if $verify; then
  scripts/release/verify.sh "$out" "${arches[@]}"
fi
