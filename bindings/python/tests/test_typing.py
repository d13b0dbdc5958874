"""The stubs match the native module (mypy.stubtest), and the example type-checks."""

import pathlib
import subprocess
import sys


def test_stubs_match_the_native_module() -> None:
    run = subprocess.run([sys.executable, "-m", "mypy.stubtest", "rocketmq_rebalance._native"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_example_and_package_type_check(root: pathlib.Path) -> None:
    example = root / "examples" / "python" / "consumer_group.py"
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", str(example)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
