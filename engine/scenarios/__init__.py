"""Scenarios and their runs: Scenario and Step (scenario.py, the run loop), many at once
(Suite, ScenarioRunner), and what a run would ask of its models (estimate.py)."""

from .runner import ScenarioRunner, get_runner
from .suite import Suite

__all__ = ["ScenarioRunner", "Suite", "get_runner"]
