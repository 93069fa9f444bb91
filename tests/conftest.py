"""Shared test helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


def conformance_cases(name: str) -> list[dict[str, Any]]:
    """Cases of ../shared/conformance/<name>; the copy under tests/data when absent."""
    for folder in (SHARED / "conformance", REPO / "tests" / "data" / "conformance"):
        path = folder / name
        if path.exists():
            return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    raise FileNotFoundError(name)
