"""The README's Python quick start runs as written."""

import pathlib
import re


def test_readme_python_blocks_run(root: pathlib.Path) -> None:
    text = (root / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "the README has a Python quick start"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
