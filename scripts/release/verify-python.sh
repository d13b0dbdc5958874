#!/usr/bin/env bash
# The wheel of one architecture as a user installs it. Both: auditwheel says manylinux_2_17 and
# abi3audit finds no symbol outside the stable ABI of CPython 3.9. x86_64: pip installs the wheel
# into a fresh virtualenv from dist/ alone (--no-index, no Rust on PATH) and the binding's whole
# test suite runs against it (not against the source folder), then pip builds a wheel from the
# sdist. aarch64: pip installs the wheel for an arm64 CPython 3.11 into a folder (--platform), and
# Debian's arm64 CPython imports it under qemu-user (scripts/release/arm64-sysroot.sh), which
# runs the binding's tests but those that need hypothesis or mypy (not pure Python).
# Usage: scripts/release/verify-python.sh DIST_DIR ARCH WORK   (PATH from scripts/release/tools.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
dist="$1" arch="$2" work="$3"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
fail() { echo "release verify (Python, $arch): $*" >&2; exit 1; }
# pytest's summary line (FILE) says tests passed and none failed.
passed() { grep -q " passed" "$1" && ! grep -q "failed\|error" "$1"; }
echo "-- $arch: the wheel"
mkdir -p "$work"
wheel=$(ls "$dist"/python/rocketmq_rebalance-"$version"-cp39-abi3-manylinux*_"$arch".whl)
auditwheel show "$wheel" > "$work/auditwheel.txt" 2>&1
grep -q "manylinux_2_17_$arch" "$work/auditwheel.txt" || fail "auditwheel: $(cat "$work/auditwheel.txt")"
abi3audit --strict "$wheel" > "$work/abi3audit.txt" 2>&1 || fail "abi3audit: $(cat "$work/abi3audit.txt")"
echo "  auditwheel: manylinux_2_17_$arch; abi3audit: stable ABI only"
if [[ $arch == "$(uname -m)" ]]; then
  python3 -m venv "$work/venv"
  # As a user without Rust: nothing but the release folder to install from, and no cargo on PATH,
  # so that the sdist beside the wheel could not be built if pip chose it.
  no_rust=$(tr ':' '\n' <<< "$PATH" | grep -v -e cargo -e rustup -e release-tools | paste -sd:)
  env PATH="$no_rust" "$work/venv/bin/pip" install -q --no-index --find-links "$dist/python" rocketmq-rebalance
  # The test extra's packages, from PyPI (rocketmq-rebalance itself is installed already).
  "$work/venv/bin/pip" install -q --find-links "$dist/python" "rocketmq-rebalance[test]"
  site=$("$work/venv/bin/python" -c 'import rocketmq_rebalance, os; print(os.path.dirname(rocketmq_rebalance.__file__))')
  [[ $site == "$work/venv/"* ]] || fail "the tests would import $site, not the installed wheel"
  (cd bindings/python && "$work/venv/bin/python" -m pytest -q -p no:cacheprovider 2>&1 | tail -1) > "$work/pytest.txt"
  passed "$work/pytest.txt" || fail "pytest: $(cat "$work/pytest.txt")"
  echo "  installed by pip from dist/ alone into a fresh virtualenv; the binding's tests against it: $(cat "$work/pytest.txt")"
  # In the native build's target folder, triple and profile (scripts/release/native.sh); what is
  # checked, that the sdist alone holds what a build needs, is the same. (Measured: dependencies
  # are compiled again all the same, their features and environment differing from that build's.)
  CARGO_TARGET_DIR="$PWD/target/release-build/$arch" MATURIN_PEP517_ARGS="--target $arch-unknown-linux-gnu --profile release-jar" \
    "$work/venv/bin/pip" wheel -q --no-deps -w "$work/from-sdist" "$dist/python/rocketmq_rebalance-$version.tar.gz"
  ls "$work/from-sdist/rocketmq_rebalance-$version-"*.whl > /dev/null || fail "the sdist built no wheel"
  echo "  the sdist builds a wheel"
else
  sysroot=$(scripts/release/arm64-sysroot.sh)
  # pip picks the wheel for an arm64 Linux by its tags, from the release folder only.
  python3 -m pip install -q --no-index --find-links "$dist/python" --platform manylinux2014_aarch64 \
    --implementation cp --python-version 3.11 --only-binary=:all: --target "$work/site" rocketmq-rebalance
  # pytest is pure Python: installed for the arm64 interpreter from here, by pip.
  pure="$work/pure"
  python3 -m pip install -q --target "$pure" "pytest>=7" "pytest-timeout>=2"
  (cd bindings/python && PYTHONPATH="$work/site:$pure" qemu-aarch64 -L "$sysroot" "$sysroot/usr/bin/python3.11" \
    -m pytest -q -p no:cacheprovider tests --ignore=tests/test_properties.py --ignore=tests/test_typing.py 2>&1 | tail -1) > "$work/pytest.txt"
  passed "$work/pytest.txt" || fail "pytest under qemu: $(cat "$work/pytest.txt")"
  echo "  installed by pip for arm64, imported by arm64 CPython 3.11 under qemu-user; the binding's tests but the hypothesis and mypy ones: $(cat "$work/pytest.txt")"
fi
