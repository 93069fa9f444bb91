"""Fixtures of the HTML pages' tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.recorded_runs import examples_run_twice


@pytest.fixture(scope="session")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/ run twice, the second run with one more failure (read only)."""
    return examples_run_twice(tmp_path_factory.mktemp("two-runs"))
