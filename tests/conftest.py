"""Fixtures every test gets (helpers live in tests/support)."""

from __future__ import annotations

import os
import sys

import pytest

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
