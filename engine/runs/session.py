"""One run session: what every front end (the CLI, the language server, the pytest
plugin) drives to run scenarios.

`RunSession(todo, settings=..., executor=...)` plans the jobs (drafts left out unless
`include_drafts`; each scenario `repeat` times), runs them through the executor, pairs
each outcome with its scenario (`ScenarioRun`, re-run marks included), folds a
scenario's repeats into one verdict (repeat.py) and yields it as soon as its last run
ends (`results()`). `cancel()` ends the run with the rest not run; `report()` is the
`RunReport` in the scenarios' order; `keep()` records its failures for `--last-failed`
(last_failed.py) and saves it in the workspace's history (keep.py). The `--max-cost`
budget is the settings' (`max_cost`), applied by the one
rate limiter of the run (engine/llm/limits.py) through `RunOptions(settings)`.

What stays with a front end: the CLI its signals, progress bar and report formats; the
server replacing and cancelling runs and showing progress; pytest its items.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..executor import Executor, Job, RunOptions
from ..settings import Settings
from ..spec.document import Document
from ..spec.scenario_analysis import ScenarioEntry
from ..spec.status import is_draft
from .keep import keep_run
from .last_failed import write_last_failed
from .report import RunReport, ScenarioRun, scenario_identity

if TYPE_CHECKING:
    from .project import Project


def runs(entry: ScenarioEntry, include_drafts: bool) -> bool:
    """The drafts rule of every front end (the CLI, the pytest plugin, the editor): a
    scenario marked `status: draft` is left out of a run unless drafts are asked for
    (applied here and by the project's selection, engine/runs/project.py)."""
    return include_drafts or not is_draft(entry)


class RunSession:
    """One run of selected scenarios through one executor (see the module docstring)."""

    def __init__(
        self,
        todo: Sequence[tuple[Document, ScenarioEntry]],
        *,
        settings: Settings,
        executor: Executor | None = None,
        target: str | None = None,
        repeat: int = 1,
        min_pass_rate: float = 1.0,
        include_drafts: bool = False,
        source: str = "cli",
        root: Path | None = None,
        prepare: Callable[[ScenarioEntry], Any] | None = None,
        handle: Any = None,
        project: Project | None = None,
    ) -> None:
        """`executor` may be given later (before `results()`); `prepare` gives the scenario
        a job runs (default: the entry's own); `handle` cancels this session's stream alone
        on a shared pool (engine/executor/pool.py's StreamHandle); `project` names the
        scenarios (their identities; default: relative to `root`, else the current
        folder)."""
        # Which of `todo` run (their indexes there): the runnable ones, drafts left out
        # unless asked.
        self.picked = [
            i for i, (_, e) in enumerate(todo) if e.scenario is not None and runs(e, include_drafts)
        ]
        self.todo = [todo[i] for i in self.picked]
        # How many drafts were left out.
        self.drafts = sum(
            1 for _, e in todo if e.scenario is not None and not runs(e, include_drafts)
        )
        self.settings = settings
        self.executor = executor
        self.target = target
        self.repeat = max(1, repeat)
        self.min_pass_rate = min_pass_rate
        self.source = source
        self.root = root
        self.project = project
        self.prepare = prepare
        self.handle = handle
        self.cancelled = False
        self.warnings: list[str] = []  # the last-failed record's, from keep()
        self._runs: list[ScenarioRun | None] = []
        self._folded: dict[int, ScenarioRun] = {}
        self._started = time.time()
        self._clock = time.perf_counter()
        self._duration: float | None = None

    def plan(self) -> list[Job]:
        """The jobs: scenario n's run r is key n * repeat + r."""
        jobs: list[Job] = []
        for i, (_, entry) in enumerate(self.todo):
            scenario = entry.scenario if self.prepare is None else self.prepare(entry)
            assert scenario is not None  # only runnable entries are planned
            jobs.extend(
                Job(i * self.repeat + r, scenario, self.target, repeat=r)
                for r in range(self.repeat)
            )
        return jobs

    def identity(self, path: str, entry: ScenarioEntry) -> str:
        """A scenario's identity in this session's project (--last-failed, the history)."""
        if self.project is not None:
            return self.project.identity(path, entry)
        return scenario_identity(path, entry, self.root or Path.cwd())

    async def results(
        self, on_job: Callable[[ScenarioRun], None] | None = None
    ) -> AsyncIterator[tuple[int, ScenarioRun]]:
        """(index in `todo`, its run) as each scenario ends, its repeats folded; `on_job`
        sees every single run (a progress bar counts them)."""
        jobs = self.plan()
        self._runs = [None] * len(jobs)
        self._started = time.time()
        self._clock = time.perf_counter()
        left = [self.repeat] * len(self.todo)
        assert self.executor is not None, "a session runs on an executor"
        options = RunOptions(self.settings)
        stream = (
            self.executor.stream(jobs, options)
            if self.handle is None
            else self.executor.stream(jobs, options, self.handle)  # type: ignore[call-arg]
        )
        try:
            async for outcome in stream:
                n = outcome.key // self.repeat
                doc, entry = self.todo[n]
                run = ScenarioRun.of(
                    doc,
                    entry,
                    outcome.result,
                    outcome.output,
                    outcome.ending,
                    outcome.rerun,
                    identity=self.identity(doc.path, entry),
                )
                self._runs[outcome.key] = run
                if on_job is not None:
                    on_job(run)
                left[n] -= 1
                if left[n] == 0:
                    self._folded[n] = folded = self._fold(n)
                    yield n, folded
        finally:
            await stream.aclose()
            self._duration = time.perf_counter() - self._clock

    def runs_of(self, n: int) -> list[ScenarioRun]:
        """The single runs of `todo[n]` that ended, in repeat order (unfolded: a
        calibration reads each repeat's verdict)."""
        return [r for r in self._runs[n * self.repeat : (n + 1) * self.repeat] if r is not None]

    def _fold(self, n: int) -> ScenarioRun:
        group = self.runs_of(n)
        if self.repeat == 1:
            return group[0]
        from .repeat import fold

        return fold(group, self.min_pass_rate)

    async def run(self, on_job: Callable[[ScenarioRun], None] | None = None) -> RunReport:
        """Run to the end (or cancellation); the report."""
        async for _ in self.results(on_job):
            pass
        return self.report()

    def cancel(self) -> None:
        """Start no more scenarios; the running ones end as cancelled."""
        self.cancelled = True
        if self.handle is not None:
            self.handle.cancel()
        elif self.executor is not None:
            self.executor.cancel()

    def report(self) -> RunReport:
        """The run so far, in the scenarios' order (a scenario cut short by a cancel shows
        the runs it finished)."""
        done: list[ScenarioRun] = []
        for n in range(len(self.todo)):
            if n in self._folded:
                done.append(self._folded[n])
            elif any(r is not None for r in self._runs[n * self.repeat : (n + 1) * self.repeat]):
                done.append(self._fold(n))
        duration = self._duration
        return RunReport(
            runs=done,
            repeat=self.repeat,
            min_pass_rate=self.min_pass_rate,
            started=self._started,
            target=self.target,
            settings=self.settings,
            duration_s=time.perf_counter() - self._clock if duration is None else duration,
            interrupted=self.cancelled,
            source=self.source,
            root=self.root,
        )

    def keep(self, report: RunReport) -> str | None:
        """Record the run's failures for the next `--last-failed` (last_failed.py: every
        front end alike; its warnings in `self.warnings`) and save the run in the
        workspace's history (the settings decide); its run id."""
        if not report.runs:
            return None
        self.warnings.extend(
            write_last_failed(
                self.root,
                (
                    (r.identity, r.result.failed or r.result.errored)
                    for r in report.runs
                    if r.ending != "cancelled"
                ),
            )
        )
        return keep_run(report, self.settings, self.root)
