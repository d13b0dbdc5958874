#!/usr/bin/env bash
# Tests each artifact in dist/ as a user installs it, away from the checkout's own builds:
#   every ELF file (CLI, C libraries, the wheel's and the jar's natives) needs no glibc symbol
#   newer than GLIBC_2.17 (objdump -T); SHA256SUMS holds;
#   CLI     the Java-answered vectors (tests/vectors/data) through `allocate --cases`, and the
#           default simulation with its invariants at 0;
#   Python  auditwheel (manylinux_2_17) and abi3audit; on x86_64 the wheel installed by pip in a
#           fresh virtualenv and the binding's whole test suite run against it; the sdist builds;
#   C/C++   the archive unpacked to a new folder; the C example linked through pkg-config (shared,
#           then static) and, on x86_64, the C++ example through CMake; run, with the same answer;
#   Java    the jar holds a native per architecture; a program compiled against the jar allocates;
#   Go      a new module outside the checkout `go get`s the module from dist/goproxy and runs.
# aarch64 programs run under qemu-user (scripts/release/verify-aarch64.sh sets that up).
# Usage: scripts/release/verify.sh DIST_DIR ARCH...
set -euo pipefail
cd "$(dirname "$0")/../.."
dist="$(realpath "${1:?usage: scripts/release/verify.sh DIST_DIR ARCH...}")"
shift
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "release verify: $*" >&2; exit 1; }

echo "-- SHA256SUMS"
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match dist/"

# The newest GLIBC_x.y any dynamic symbol of FILE needs (objdump of FILE's architecture).
newest_glibc() {
  local objdump=objdump
  if grep -q AArch64 <<< "$(readelf -h "$1")"; then objdump=aarch64-linux-gnu-objdump; fi
  "$objdump" -T "$1" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1
}
glibc_ok() {
  local newest
  newest=$(newest_glibc "$1")
  [[ -n $newest ]] || fail "$1: no GLIBC symbol versions (not a glibc ELF?)"
  [[ "$(printf '%s\nGLIBC_2.17\n' "$newest" | sort -V | tail -1)" == GLIBC_2.17 ]] || fail "$1 needs $newest, newer than GLIBC_2.17"
  printf '  %-72s %s\n' "${1#"$work"/}" "$newest"
}

echo "-- glibc floor: no symbol newer than GLIBC_2.17"
mkdir -p "$work/elf"
for arch in "$@"; do
  glibc_ok "$dist/cli/rmq-rebalance-$version-linux-$arch"
  tar -xzf "$dist/c/rocketmq-rebalance-$version-linux-$arch.tar.gz" -C "$work/elf"
  glibc_ok "$work/elf/rocketmq-rebalance-$version-linux-$arch/lib/librocketmq_rebalance.so.$version"
  wheel=$(ls "$dist"/python/rocketmq_rebalance-"$version"-cp39-abi3-manylinux*_"$arch".whl)
  (cd "$work/elf" && mkdir -p "wheel-$arch" && cd "wheel-$arch" && python3 -m zipfile -e "$wheel" .)
  glibc_ok "$work/elf/wheel-$arch/rocketmq_rebalance/_native.abi3.so"
  jar="$dist/maven/io/github/rocketmq-rebalance/rocketmq-rebalance/$version/rocketmq-rebalance-$version.jar"
  (cd "$work/elf" && mkdir -p "jar-$arch" && cd "jar-$arch" && python3 -m zipfile -e "$jar" .)
  glibc_ok "$work/elf/jar-$arch/native/linux/$arch/librocketmq_rebalance_jni-$version.so"
done

for arch in "$@"; do
  began=$SECONDS
  # How a program of this architecture runs here.
  run=()
  if [[ $arch != "$(uname -m)" ]]; then
    run=(qemu-"$arch")
  fi
  echo "-- $arch: the CLI"
  cli="$work/cli-$arch/rmq-rebalance"
  install -D -m 0755 "$dist/cli/rmq-rebalance-$version-linux-$arch" "$cli"
  if [[ ${#run[@]} -gt 0 ]]; then
    printf '#!/bin/sh\nexec %s %s "$@"\n' "${run[*]}" "$cli.bin" > "$cli.run"
    mv "$cli" "$cli.bin" && mv "$cli.run" "$cli" && chmod +x "$cli"
  fi
  "$cli" --version | grep -q "^rmq-rebalance $version (commit " || fail "$arch CLI: --version says $("$cli" --version)"
  # Every strategy's committed vectors (sort.jsonl is the sort order alone, no allocate case).
  cases=0
  for f in tests/vectors/data/*.jsonl; do
    [[ $(basename "$f") == sort.jsonl ]] && continue
    python3 tests/vectors/check_cli.py "$cli" "$f" > /dev/null || fail "$arch CLI disagrees with Java on $f"
    cases=$((cases + $(wc -l < "$f")))
  done
  echo "  the Java-answered vectors of every strategy: every answer equal ($cases cases)"
  "$cli" simulate > "$work/sim-$arch.txt"
  grep -Eq "^ *invariant violations: orderly exclusivity 0, lost messages 0, offset regressions 0, convergence 0, unlocks under a running call 0$" \
    "$work/sim-$arch.txt" || fail "$arch CLI: the default simulation broke an invariant"
  echo "  the default simulation: every invariant at 0"

  scripts/release/verify-c.sh "$dist" "$arch" "$work/c-$arch"
  scripts/release/verify-python.sh "$dist" "$arch" "$work/python-$arch"
  scripts/release/verify-java.sh "$dist" "$arch" "$work/java-$arch"
  scripts/release/verify-go.sh "$dist" "$arch" "$work/go-$arch"
  echo "   $arch verify: $((SECONDS - began)) s"
done
# One library, one answer: the C example's output is the same on every architecture.
if [[ $# -gt 1 ]]; then
  for arch in "$@"; do cmp -s "$work/c-$1/answer.txt" "$work/c-$arch/answer.txt" || fail "the C example answers differently on $1 and $arch"; done
  echo "-- the C example answers the same on $*"
fi
echo "release verify: every artifact of $* tested as installed"
