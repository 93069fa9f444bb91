"""The in-process executor: scenarios run on the caller's event loop.

For the Python API and tests: no isolation (a target that blocks the loop or exits the
process takes the caller with it), but no process start-up either.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence

from ..llm import limits
from . import capture
from .base import Executor
from .jobs import Ending, Job, Outcome, RunOptions, not_run, run_job, stopped, timeout_message


class InProcessExecutor(Executor):
    def __init__(self, concurrency: int = 8) -> None:
        self._concurrency = max(1, concurrency)
        self._tasks: list[asyncio.Task[Outcome]] = []
        self._cancelled = False

    async def stream(
        self, jobs: Sequence[Job], options: RunOptions
    ) -> AsyncGenerator[Outcome, None]:
        gate = limits.run_limiter(options.settings.limits, options.settings.max_cost)
        self._cancelled = False
        semaphore = asyncio.Semaphore(self._concurrency)
        timeout = options.scenario_timeout

        async def one(job: Job) -> Outcome:
            async with semaphore:
                if self._cancelled:
                    raise asyncio.CancelledError
                with capture.capturing() as captured:
                    try:
                        result = await asyncio.wait_for(
                            run_job(job, options.settings, gate), timeout
                        )
                    except TimeoutError:
                        message = timeout_message(timeout)
                        result = stopped(job.scenario, message, exception_type="ScenarioTimeout")
                        return Outcome(job.key, result, captured.text(), Ending.TIMEOUT)
                return Outcome(job.key, result, captured.text())

        streams = capture.installed()
        streams.__enter__()
        self._tasks = [asyncio.ensure_future(one(job)) for job in jobs]
        by_task = dict(zip(self._tasks, jobs, strict=True))
        try:
            for finished in asyncio.as_completed(self._tasks):
                try:
                    yield await finished
                except asyncio.CancelledError:
                    if not self._cancelled:  # the caller itself is being cancelled
                        raise
            for task, job in by_task.items():
                if task.cancelled():
                    why = "not run: the run was cancelled"
                    yield Outcome(job.key, not_run(job.scenario, why), ending=Ending.CANCELLED)
        finally:
            for task in self._tasks:
                task.cancel()
            self._tasks = []
            streams.__exit__(None, None, None)

    def cancel(self) -> None:
        self._cancelled = True
        for task in self._tasks:
            task.cancel()
