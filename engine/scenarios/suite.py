"""Suite: scenarios run together (serially or concurrently) against one target.

suite = Suite(name="support", target=agent).append(refund).append(tone)
result = await suite.run(parallel=True, max_concurrency=8)
result.print_report(group_by="Category")
result.to_junit_xml("report.xml")
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Generic

from pydantic import BaseModel, ConfigDict, Field

from ..core.result import ScenarioResult, SuiteResult
from ..core.run_sync import run_sync
from ..core.sentinel import MISSING
from ..core.typevars import InputType, OutputType
from .scenario import Scenario


class Suite(BaseModel, Generic[InputType, OutputType]):
    """Scenarios run together; a suite (or run) target overrides the scenarios' own."""

    model_config = ConfigDict(defer_build=True, arbitrary_types_allowed=True)

    name: str = Field(description="Suite name.")
    scenarios: list[Scenario] = Field(default_factory=list, description="Scenarios, in order.")
    target: Any | MISSING = Field(
        default=MISSING,
        description="Target for every scenario, overriding the scenarios' own targets.",
    )

    def append(self, scenario: Scenario) -> Suite[InputType, OutputType]:
        """Add a scenario; returns the suite for chaining."""
        self.scenarios.append(scenario)
        return self

    async def run(
        self,
        target: Any = MISSING,
        return_exception: bool = False,
        parallel: bool = False,
        max_concurrency: int | None = None,
        verbose: bool = True,
    ) -> SuiteResult:
        """Run every scenario; results keep the scenarios' order.

        `parallel` runs them concurrently, at most `max_concurrency` at once (None: no
        limit). `verbose` shows a progress bar while they run (on a terminal).
        """
        if max_concurrency is not None:
            if not isinstance(max_concurrency, int) or isinstance(max_concurrency, bool):
                raise TypeError("max_concurrency must be None or a positive integer")
            if max_concurrency < 1:
                raise ValueError("max_concurrency must be greater than 0")
        chosen = target if target is not MISSING else self.target
        started = time.perf_counter()
        with _progress(self, verbose) as progress:
            if parallel:
                results = await self._run_parallel(
                    chosen, return_exception, max_concurrency, progress
                )
            else:
                results = []
                for scenario in self.scenarios:
                    results.append(await scenario.run(chosen, return_exception))
                    progress.record(results[-1].status)
        return SuiteResult(
            results=results, duration_ms=int((time.perf_counter() - started) * 1000), suite=self
        )

    async def _run_parallel(
        self, target: Any, return_exception: bool, limit: int | None, progress: Any
    ) -> list[ScenarioResult[Any]]:
        semaphore = asyncio.Semaphore(limit) if limit else None

        async def run_one(scenario: Scenario) -> ScenarioResult[Any]:
            with progress.scenario_row(scenario.name or "scenario"):
                return await scenario.run(target, return_exception)

        async def one(scenario: Scenario) -> ScenarioResult[Any]:
            if semaphore is None:
                result = await run_one(scenario)
            else:
                async with semaphore:
                    result = await run_one(scenario)
            progress.record(result.status)
            return result

        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(one(s)) for s in self.scenarios]
        except* Exception as errors:
            if len(errors.exceptions) == 1:  # one failing scenario: its own exception
                raise errors.exceptions[0] from None
            raise
        return [task.result() for task in tasks]

    def run_sync(self, *args: Any, **kwargs: Any) -> SuiteResult:
        """`run(...)` from synchronous code (not inside a running event loop)."""
        return run_sync(self.run, *args, **kwargs)


class _Quiet:
    """The progress of a run that shows none."""

    def record(self, status: Any) -> None:
        pass

    @contextmanager
    def scenario_row(self, name: str) -> Iterator[None]:
        yield


@contextmanager
def _progress(suite: Suite[Any, Any], verbose: bool) -> Iterator[Any]:
    """The live progress display (suite_progress.py) of a verbose run, else a no-op."""
    if not verbose or not suite.scenarios:
        yield _Quiet()
        return
    from .suite_progress import _SuiteProgress

    with _SuiteProgress() as progress:
        progress.start_overall(f"Suite {suite.name}", len(suite.scenarios))
        yield progress


def __getattr__(name: str) -> Any:
    # giskard-checks' progress classes, without loading rich for every import of the suite.
    if name in ("_SuiteProgress", "_OverallOnly"):
        from . import suite_progress

        return getattr(suite_progress, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# SuiteResult names Suite (defined here, imported there only for type checking).
SuiteResult.model_rebuild()

__all__ = ["Suite"]
