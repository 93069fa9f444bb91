"""Scenarios and their runs: Scenario and Step (scenario.py, the run loop), many at once
(Suite, ScenarioRunner), and what a run would ask of its models (estimate.py).

The package's names load on first use: validating a file needs scenario.py's models, not
the suite machinery (whose result model is built when suite.py is imported)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .runner import ScenarioRunner, get_runner
    from .suite import Suite

_WHERE = {"ScenarioRunner": ".runner", "get_runner": ".runner", "Suite": ".suite"}

__all__ = ["ScenarioRunner", "Suite", "get_runner"]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value
