"""ScenarioRunner: the reference library's entry point for running a scenario.

`Scenario.run` is the run loop itself (scenario.py); the runner is kept for code that
calls `ScenarioRunner().run(scenario, ...)` or `get_runner()`.
"""

from __future__ import annotations

from typing import Any

from ..core.result import ScenarioResult
from ..core.sentinel import MISSING
from ..core.trace import Trace, infer_trace_type
from ..interactions import Interact
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


def _resolve_trace_type(scenario: Scenario, run_target: Any) -> Any:
    """The trace class a run builds: the scenario's trace_type, else the second parameter's
    annotation of the run's target (or the scenario's) when it is a Trace type, else Trace."""
    if scenario.trace_type is not None:
        return scenario.trace_type
    target = run_target if run_target is not MISSING else scenario.target
    return infer_trace_type(target) or Trace


def _build_steps(scenario: Scenario, target: Any) -> list[Any]:
    """The scenario's steps with `target` (else the scenario's) answering their interactions
    (a target answers every interaction: docs/compatibility.md); as they are without one."""
    target = target if target is not MISSING else scenario.target
    if target is MISSING or target is None:
        return list(scenario.steps)
    return [
        step.model_copy(
            update={
                "interacts": [
                    i.model_copy(update={"outputs": target}) if isinstance(i, Interact) else i
                    for i in step.interacts
                ]
            }
        )
        for step in scenario.steps
    ]


__all__ = ["ScenarioRunner", "get_runner"]
