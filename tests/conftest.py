"""Shared test helpers."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPORA = REPO / "tests" / "data" / "conformance"


def read_cases(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def conformance_cases(name: str) -> list[dict[str, Any]]:
    """The repository's corpus (tests/data/conformance): tests read nothing from outside
    the repository (it holds every case of the project's shared corpus, and more)."""
    cases = read_cases(CORPORA / name)
    if not cases:
        raise FileNotFoundError(name)
    return cases


if os.environ.get("MUTANT_UNDER_TEST") is not None:
    # Under `make mutate`, mutmut records which tests reach each function. The engine's
    # caches (analyses by scenario text, compiled paths, regexes, policies...) would let
    # only the first test reach the code behind them, so every test starts without them.
    import pytest

    @pytest.fixture(autouse=True)
    def _no_shared_caches() -> None:
        for name, module in list(sys.modules.items()):
            if not name.startswith("checkspec.") or module is None:
                continue
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()
                elif isinstance(value, dict) and value is getattr(module, "_CACHE", None):
                    value.clear()


@pytest.fixture(autouse=True)
def _own_verdict_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Each test gets an empty verdict cache (runs keep judge answers between runs in
    .checkspec/cache; a test must never be answered by an earlier one's)."""
    monkeypatch.setenv("CHECKSPEC_CACHE_DIR", str(tmp_path_factory.mktemp("verdicts")))
