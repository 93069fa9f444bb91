"""Shared test helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
CORPORA = REPO / "tests" / "data" / "conformance"


def read_cases(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def shared_cases(name: str) -> list[dict[str, Any]]:
    """Cases of ../shared/conformance/<name> (absent outside a checkout beside shared/)."""
    return read_cases(SHARED / "conformance" / name)


def conformance_cases(name: str) -> list[dict[str, Any]]:
    """The repository's corpus (tests/data/conformance), plus any shared case it lacks.

    The repository's copy adds messages and cases to the shared one; a case both have must
    expect the same (test_conformance.py checks it).
    """
    cases = read_cases(CORPORA / name)
    if not cases:
        raise FileNotFoundError(name)
    known = {case["id"] for case in cases}
    return cases + [case for case in shared_cases(name) if case["id"] not in known]
