"""What crosses the process boundary: a job (one scenario to run) and its outcome.

Both are plain picklable values, so any executor (in-process, a pool of worker
processes, a cluster) can carry them. Every job submitted yields exactly one outcome:
finished, stopped at its deadline, lost with a dead worker, or cancelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..core.result import CheckResult, ScenarioResult, TestCaseError, TestCaseResult
from ..core.trace import Trace
from ..scenarios.scenario import Scenario, Step
from ..settings import Settings


@dataclass(frozen=True)
class Job:
    """One scenario to run; `key` is the caller's own identifier for it."""

    key: int
    scenario: Scenario
    target: str | None = None  # overrides the scenario's own target
    repeat: int = 0  # `--repeat K`: 0 the first run, 1..K-1 the repeats (no verdict cache)


async def run_job(job: Job, settings: Settings | None = None, gate: Any = None) -> ScenarioResult:
    """Run the job's scenario (as its repeat, when it is one) with the run's settings
    snapshot and its provider-limits gate (limits.Gate; None: no limits): its model calls
    see those (engine/llm/snapshot.py, limits.gating), and nothing global is written.
    No settings: the environment's and the process's gate (library use)."""
    if settings is None:
        return await _run_job(job)
    from ..capture import CaptureUnavailable, capturing
    from ..llm import limits
    from ..settings import use_settings

    with use_settings(settings), limits.gating(gate):
        try:
            with capturing(settings.capture):
                return await _run_job(job)
        except CaptureUnavailable as exc:  # this process cannot capture: said per scenario
            return stopped(job.scenario, str(exc), exception_type="CaptureUnavailable")


async def _run_job(job: Job) -> ScenarioResult:
    work = job.scenario.run(target=job.target, return_exception=True)
    if not job.repeat:
        return await work
    from ..llm.client import in_repeat

    return await in_repeat(job.repeat, work)


@dataclass(frozen=True)
class RunOptions:
    """What every job of one run shares."""

    settings: Settings = field(default_factory=Settings)

    @property
    def scenario_timeout(self) -> float:
        return self.settings.scenario_timeout


class Ending(StrEnum):
    """How a job ended."""

    FINISHED = "finished"  # the scenario ran (its result may still be FAIL or ERROR)
    TIMEOUT = "timeout"  # stopped at scenario_timeout
    CRASHED = "crashed"  # its worker process died
    CANCELLED = "cancelled"  # the run was cancelled before it finished


@dataclass
class Outcome:
    """A job's result, the output its code printed, and how it ended."""

    key: int
    result: ScenarioResult
    output: str = ""
    ending: Ending = Ending.FINISHED
    # Why this result is of a second run (its first was lost with its worker), if it is:
    # "re-run: its worker was stopped for <scenario>", "re-run after worker crash (...)".
    rerun: str | None = None


def timeout_message(seconds: float) -> str:
    return f"did not finish within {seconds:g} s (stopped)"


def stopped(
    scenario: Scenario,
    why: str,
    *,
    exception_type: str,
    traceback: str | None = None,
) -> ScenarioResult:
    """An ERROR result for a scenario that never finished (deadline, dead worker)."""
    error = TestCaseError(
        message=why, exception_type=exception_type, traceback=traceback, phase="run"
    )
    steps = scenario.steps or []
    results = [
        TestCaseResult(
            results=[CheckResult.skip("not run: the scenario did not finish") for _ in s.checks],
            error=error if index == 0 else None,
            check_names=[c.display_name for c in s.checks],
            skip_reason=None if index == 0 else "not run: the scenario did not finish",
        )
        for index, s in enumerate(steps)
    ]
    if not results:
        results = [TestCaseResult(results=[], error=error)]
    return _result(scenario, results)


def not_run(scenario: Scenario, why: str) -> ScenarioResult:
    """A SKIP result for a scenario a cancelled run never finished."""
    # A scenario without steps still reports one SKIP: an empty result would read as PASS.
    return _result(scenario, [s.skipped(why) for s in scenario.steps] or [Step().skipped(why)])


def _result(scenario: Scenario, steps: list[TestCaseResult]) -> ScenarioResult:
    return ScenarioResult(
        scenario_name=scenario.name,
        steps=steps,
        final_trace=Trace(),
        tags=list(scenario.tags),
        replayed=scenario.replays,
    )
