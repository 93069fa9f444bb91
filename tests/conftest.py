"""Shared test helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


def conformance_cases(name: str) -> list[dict[str, Any]]:
    """Cases of ../shared/conformance/<name>; the copy under tests/data when absent."""
    for folder in (SHARED / "conformance", REPO / "tests" / "data" / "conformance"):
        path = folder / name
        if path.exists():
            return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    raise FileNotFoundError(name)


@pytest.fixture(autouse=True)
def _own_verdict_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Each test gets an empty verdict cache (runs keep judge answers between runs in
    .checkspec/cache; a test must never be answered by an earlier one's)."""
    monkeypatch.setenv("CHECKSPEC_CACHE_DIR", str(tmp_path_factory.mktemp("verdicts")))
