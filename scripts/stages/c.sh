#!/usr/bin/env bash
# Stage of the test command (scripts/test-all.sh): the C ABI and the C++ wrapper, with sanitizers and valgrind.
# The C ABI end to end: header regeneration, exported symbols, the C11 tests
# (plain, ASan+UBSan, valgrind), the GoogleTest tests of the C++ wrapper, and the README's C and
# C++ examples built with pkg-config and CMake against an installed copy.
# Runs alone too: scripts/test-all.sh --only c, or this file. RMQ_SEED replays random inputs.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=target/c-tests
prefix=$root/target/c-prefix
mkdir -p "$out"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
cflags=(-std=c11 -Wall -Wextra -Wpedantic -Werror -g -I"$prefix/include" -DEXPECTED_VERSION="\"$version\"")
# -Wl,a,b passes a and b to the linker: the commas are not array separators.
# shellcheck disable=SC2054
libs=(-L"$prefix/lib" -lrocketmq_rebalance -lpthread -Wl,-rpath,"$prefix/lib")

echo "-- header: regenerate with the pinned cbindgen and compare"
scripts/lib/gen-header.sh --check

echo "-- a panic reaching C: the test-only panic-probe build (kept apart, never installed)"
probe=$out/panic-probe
mkdir -p "$probe"
cargo build --locked --release -q -p rocketmq-rebalance-c --features panic-probe
cp target/release/librocketmq_rebalance.so "$probe/"
soname=$(readelf -d "$probe/librocketmq_rebalance.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
ln -sf librocketmq_rebalance.so "$probe/$soname"
gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -g -Iinclude -o "$probe/test_panic" ffi/tests/c/test_panic.c \
  -L"$probe" -lrocketmq_rebalance -lpthread -Wl,-rpath,"$probe"
# The panic hook prints each probe's panic to stderr: kept in a log, shown only on failure.
RUST_BACKTRACE=0 "$probe/test_panic" 2> "$probe/panic.log" || { cat "$probe/panic.log" >&2; exit 1; }

echo "-- install into $prefix (release build)"
rm -rf "$prefix"
scripts/install-c.sh "$prefix" > /dev/null
if nm -D --defined-only "$prefix/lib/librocketmq_rebalance.so" | grep -c rmq_test_panic > /dev/null; then
  echo "the installed library exports the test-only rmq_test_panic" >&2; exit 1
fi

echo "-- exported symbols: rmq_* only"
exported=$(nm -D --defined-only "$prefix/lib/librocketmq_rebalance.so" | awk '{print $3}')
if grep -v '^rmq_' <<< "$exported" | grep -v '^RMQ_0$'; then
  echo "symbols outside rmq_* are exported (above)" >&2; exit 1
fi
declared=$(grep -oE '\brmq_[a-z_0-9]+\(' include/rocketmq_rebalance.h | tr -d '(' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported" | sort -u))
[[ -z "$missing" ]] || { echo "declared in the header but not exported: $missing" >&2; exit 1; }
echo "$(wc -l <<< "$exported") symbols, every one rmq_*, every declared function exported"

echo "-- C11 tests: build plain and with -fsanitize=address,undefined"
python3 ffi/tests/vectors_to_text.py tests/vectors/data "$out/vectors.txt" tests/golden/balanced_sticky.jsonl tests/golden/balanced_sticky_v2.jsonl
for t in test_api test_queue_list test_diagnose test_engine test_engine_safety test_vectors; do
  gcc "${cflags[@]}" -o "$out/$t" "ffi/tests/c/$t.c" "${libs[@]}"
  gcc "${cflags[@]}" -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
    -o "$out/${t}_asan" "ffi/tests/c/$t.c" "${libs[@]}"
  # Prove the sanitizers are really linked, not silently dropped.
  # (grep -c reads all of nm's output: grep -q would close the pipe early and fail pipefail.)
  nm "$out/${t}_asan" | grep -c '__asan_init' > /dev/null || { echo "$t: ASan is not linked" >&2; exit 1; }
  nm "$out/${t}_asan" | grep -c '__ubsan_handle' > /dev/null || { echo "$t: UBSan is not linked" >&2; exit 1; }
done
"$out/test_api"
"$out/test_queue_list"
"$out/test_diagnose"
"$out/test_engine"
"$out/test_engine_safety"
"$out/test_vectors" "$out/vectors.txt"
echo "-- the same under ASan+UBSan (LeakSanitizer on)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$out/test_api_asan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$out/test_queue_list_asan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$out/test_diagnose_asan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$out/test_engine_asan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$out/test_engine_safety_asan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "$out/test_vectors_asan" "$out/vectors.txt"
echo "-- the same under valgrind memcheck (any error or leak fails)"
# shellcheck disable=SC2054  # --show-leak-kinds takes a comma-separated list
vg=(valgrind -q --error-exitcode=3 --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible)
"${vg[@]}" "$out/test_api"
"${vg[@]}" "$out/test_queue_list"
"${vg[@]}" "$out/test_diagnose"
"${vg[@]}" "$out/test_engine"
"${vg[@]}" "$out/test_engine_safety"
# Every 8th vector case under memcheck, which runs them about 30x slower (61 s for all of them, 2 s
# plain): every strategy and every kind of error still appears, and the whole file ran plain and
# under ASan+UBSan with LeakSanitizer above.
awk '/^case /{n++} n%8==1' "$out/vectors.txt" > "$out/vectors-sample.txt"
"${vg[@]}" "$out/test_vectors" "$out/vectors-sample.txt" "$(grep -c '^case ' "$out/vectors-sample.txt")"

echo "-- the README's C block is examples/c/allocate.c"
python3 scripts/docs/check_readme_examples.py

echo "-- the README's C and C++ quick start, run as written (HOME in a scratch folder, so PREFIX is fresh)"
# The block builds ./allocate, ./allocate_static and build-example/ in the project root (as a user
# following the README would): removed afterwards.
readme_out=(allocate allocate_static build-example)
trap 'rm -rf "${readme_out[@]}"' EXIT
rm -rf "${readme_out[@]}"
block=$(python3 scripts/docs/check_readme_examples.py --print-block "## Quick start: C and C++" sh)
scratch_home=$root/$out/readme-home
rm -rf "$scratch_home" && mkdir -p "$scratch_home"
# cargo and rustup find their homes through these when HOME moves.
cargo_home=${CARGO_HOME:-$HOME/.cargo}
rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
CARGO_HOME=$cargo_home RUSTUP_HOME=$rustup_home HOME=$scratch_home \
  env -u LD_LIBRARY_PATH -u PKG_CONFIG_PATH bash -euo pipefail -c "$block" > "$out/readme-c.log"
grep -q "CONSISTENT_HASH gives 10.0.0.1@7" "$out/readme-c.log" || { cat "$out/readme-c.log"; echo "the README's C program printed nothing" >&2; exit 1; }
grep -q "queues move" "$out/readme-c.log" || { cat "$out/readme-c.log"; echo "the README's C++ program did not run" >&2; exit 1; }
if ldd ./allocate_static | grep -c rocketmq_rebalance > /dev/null; then
  echo "the static build links the shared library" >&2; exit 1
fi
env -u LD_LIBRARY_PATH ./allocate_static > /dev/null
installed=$scratch_home/.local/rocketmq-rebalance/lib/librocketmq_rebalance.so.$version
if readelf -S "$installed" | grep -c debug_info > /dev/null; then
  echo "the installed shared library still carries debug info" >&2; exit 1
fi
echo "  ran as written: pkg-config shared (rpath, no LD_LIBRARY_PATH) and static, CMake C++ example"
rm -rf "${readme_out[@]}"
trap - EXIT

echo "-- the C++ example against the static library too (CMake)"
cmake -S examples/cpp -B "$out/example-cpp" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$out/example-cpp" -j2 > /dev/null
"$out/example-cpp/allocate_example_static" > /dev/null

echo "-- C++ wrapper: GoogleTest"
cmake -S ffi/tests/cpp -B "$out/cpp" -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build "$out/cpp" -j2 > /dev/null
"$out/cpp/wrapper_test" --gtest_brief=1
echo "C ABI: all tests passed"
