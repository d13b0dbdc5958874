#!/usr/bin/env bash
# Stage of the test command (scripts/test-all.sh): the wheel built by pip, then pytest.
# Pip install ./bindings/python into a fresh virtualenv, then pytest; the example;
# a panic reaching Python, from a wheel built with the test-only panic probe.
# Runs alone too: scripts/test-all.sh --only python, or this file. RMQ_SEED replays random inputs.
set -euo pipefail
cd "$(dirname "$0")/../.."
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
"$probe_venv/bin/pip" install -q pytest pytest-timeout
MATURIN_PEP517_ARGS="--features panic-probe" "$probe_venv/bin/pip" install -q ./bindings/python
(cd bindings/python && RMQ_PANIC_PROBE=1 RUST_BACKTRACE=0 "../../$probe_venv/bin/python" -m pytest -q -p no:cacheprovider \
  tests/test_panic_crossing.py 2> "../../$probe_venv/panic.log")
