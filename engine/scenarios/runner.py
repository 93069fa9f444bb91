"""ScenarioRunner: the reference library's entry point for running a scenario.

`Scenario.run` is the run loop itself (scenario.py); the runner is kept for code that
calls `ScenarioRunner().run(scenario, ...)` or `get_runner()`.
"""

from __future__ import annotations

from typing import Any

from ..core.result import ScenarioResult
from ..core.sentinel import MISSING
from .scenario import Scenario


class ScenarioRunner:
    """Runs scenarios: steps in order over one trace, stopping after a failing step."""

    async def run(
        self,
        scenario: Scenario,
        target: Any = MISSING,
        return_exception: bool = False,
        multiple_runs: int | None = None,
    ) -> ScenarioResult[Any]:
        return await scenario.run(target, return_exception, multiple_runs)


_RUNNER = ScenarioRunner()


def get_runner() -> ScenarioRunner:
    """The process-wide runner."""
    return _RUNNER


__all__ = ["ScenarioRunner", "get_runner"]
