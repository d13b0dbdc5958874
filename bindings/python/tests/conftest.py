import json
import pathlib
from typing import Any, Dict, List

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
VECTORS = ROOT / "tests" / "vectors" / "data"


def vector_lines(name: str) -> List[Dict[str, Any]]:
    with open(VECTORS / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT
