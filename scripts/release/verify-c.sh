#!/usr/bin/env bash
# The C/C++ archive of one architecture as a user installs it: unpacked into a new folder, the
# README's C example linked through pkg-config against the shared library (no LD_LIBRARY_PATH:
# the .pc's rpath) and the static one (no librocketmq_rebalance.so needed), on x86_64 the C++
# example through CMake's find_package, each run; the C-ABI vector and engine tests linked against
# it. aarch64 programs are compiled by zig for glibc
# 2.17 and run under qemu-user. Writes WORK/answer.txt (the example's output).
# Usage: scripts/release/verify-c.sh DIST_DIR ARCH WORK
set -euo pipefail
cd "$(dirname "$0")/../.."
dist="$1" arch="$2" work="$3"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
fail() { echo "release verify (C, $arch): $*" >&2; exit 1; }
echo "-- $arch: the C/C++ archive"
prefix="$work/unpacked/to/any/prefix"
mkdir -p "$prefix"
tar -xzf "$dist/c/rocketmq-rebalance-$version-linux-$arch.tar.gz" -C "$prefix" --strip-components=1
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
[[ "$(pkg-config --modversion rocketmq_rebalance)" == "$version" ]] || fail "pkg-config reports $(pkg-config --modversion rocketmq_rebalance)"
if [[ $arch == "$(uname -m)" ]]; then
  cc=(cc) run=()
else
  cc=(python3 -m ziglang cc -target "$arch-linux-gnu.2.17") run=("qemu-$arch")
fi
# As a user would: the flags pkg-config gives (word-split on purpose), the archive's own prefix.
# shellcheck disable=SC2046
"${cc[@]}" examples/c/allocate.c -o "$work/allocate" $(pkg-config --cflags --libs rocketmq_rebalance)
# shellcheck disable=SC2046
"${cc[@]}" examples/c/allocate.c -o "$work/allocate_static" $(pkg-config --cflags --libs --static rocketmq_rebalance-static)
if [[ ${#run[@]} -eq 0 ]]; then
  # Read whole before grep: `ldd | grep -q` under pipefail fails when grep stops reading early
  # and ldd, still writing, dies of SIGPIPE.
  shared_deps=$(ldd "$work/allocate")
  static_deps=$(ldd "$work/allocate_static")
  grep -q "librocketmq_rebalance.so.* => $prefix/lib/" <<< "$shared_deps" || fail "the shared example does not load the archive's library: $shared_deps"
  grep -q rocketmq_rebalance <<< "$static_deps" && fail "the static example still needs librocketmq_rebalance.so"
fi
env -u LD_LIBRARY_PATH "${run[@]}" "$work/allocate" > "$work/answer.txt"
env -u LD_LIBRARY_PATH "${run[@]}" "$work/allocate_static" > "$work/answer-static.txt"
cmp -s "$work/answer.txt" "$work/answer-static.txt" || fail "the shared and the static library answer differently"
grep -q "gives 10.0.0.1@7" "$work/answer.txt" || fail "the example printed: $(cat "$work/answer.txt")"
echo "  C example through pkg-config, shared (rpath) and static: the same answer ($(head -1 "$work/answer.txt"))"
# The C-ABI tests over the Java-answered vectors and the engine's, linked against the archive.
python3 ffi/tests/vectors_to_text.py tests/vectors/data "$work/vectors.txt" tests/golden/balanced_sticky.jsonl \
  tests/golden/balanced_sticky_v2.jsonl > /dev/null
for t in test_vectors test_engine; do
  # shellcheck disable=SC2046
  "${cc[@]}" -std=c11 "ffi/tests/c/$t.c" -o "$work/$t" $(pkg-config --cflags --libs rocketmq_rebalance)
done
env -u LD_LIBRARY_PATH "${run[@]}" "$work/test_vectors" "$work/vectors.txt" > "$work/test_vectors.txt" 2>&1 \
  || fail "the C vector tests: $(tail -5 "$work/test_vectors.txt")"
env -u LD_LIBRARY_PATH "${run[@]}" "$work/test_engine" > "$work/test_engine.txt" 2>&1 || fail "the C engine tests: $(tail -5 "$work/test_engine.txt")"
echo "  the C-ABI tests against the archive: $(tail -1 "$work/test_vectors.txt"); $(tail -1 "$work/test_engine.txt")"
if [[ $arch == "$(uname -m)" ]]; then
  cmake -S examples/cpp -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$work/cmake" -j2 > /dev/null
  env -u LD_LIBRARY_PATH "$work/cmake/allocate_example" > /dev/null
  env -u LD_LIBRARY_PATH "$work/cmake/allocate_example_static" > /dev/null
  echo "  C++ example through CMake find_package, shared and static: built and ran"
fi
