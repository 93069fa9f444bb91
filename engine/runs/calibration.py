"""Calibration through the run session: `checkspec calibrate` and the editor's calibrate
command drive this one loop (engine/calibrate plans the labels and reads the verdicts).

Each label's scenario (calibrate/labels.py: its steps up to the label, replayed, no
target) is one todo entry of a `RunSession`, run `repeat` times (the session's keys and
its `Job.repeat`, so the repeats bypass the verdict cache and ask the judge again), drafts
included (a label is a label). One session a judge model asked for (`--model A --model
B`; None: the settings' model, which judges without a model of their own use). A session
cancelled ends the calibration, interrupted, with what was judged; a label whose runs
were all cancelled is not judged. How a session runs is the front end's (`drive`): the
CLI on its executor with a progress bar, the server on its warm pool with work-done
progress and cancellation.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..calibrate.labels import Planned
from ..calibrate.run import Calibration, Judged, judged_from, judges_of
from ..executor import Ending, Executor
from ..settings import Settings
from .report import ScenarioRun
from .session import RunSession


class CalibrationRun:
    """One calibration: a run session per judge model over the planned labels."""

    def __init__(
        self,
        planned: Sequence[Planned],
        *,
        settings: Settings,
        repeat: int = 1,
        models: Sequence[str | None] = (None,),
        source: str = "cli",
        root: Path | None = None,
        prepare: Callable[[Any], Any] | None = None,
        handle: Callable[[], Any] | None = None,
        disabled: int = 0,
    ) -> None:
        """`prepare` and `handle` (a factory: one handle a session) as RunSession's;
        `disabled`: the labelled checks left out as disabled (labelled() counts them)."""
        self.planned = list(planned)
        self.disabled = disabled
        self.settings = settings
        self.repeat = max(1, repeat)
        self.models = list(models) or [None]
        self.source = source
        self.root = root
        self.prepare = prepare
        self.handle = handle
        self.interrupted = False
        self.session: RunSession | None = None  # the one running
        self._judged: list[Judged] = []
        self._started = time.time()
        self._clock = time.perf_counter()

    def sessions(self) -> Iterator[RunSession]:
        """Each judge model's session, to be run before the next is asked for; none after
        one was cancelled."""
        self._started, self._clock = time.time(), time.perf_counter()
        todo = [plan.todo() for plan in self.planned]
        for model in self.models:
            settings = self.settings if model is None else replace(self.settings, model=model)
            session = RunSession(
                todo,
                settings=settings,
                repeat=self.repeat,
                include_drafts=True,
                source=self.source,
                root=self.root,
                prepare=self.prepare,
                handle=None if self.handle is None else self.handle(),
            )
            self.session = session
            yield session
            asked = model or self.settings.model or "default"
            self._judged.extend(
                judged_from(plan.label, asked, _verdicts(session.runs_of(n)))
                for n, plan in enumerate(self.planned)
            )
            if session.cancelled:
                self.interrupted = True
                return

    def cancel(self) -> None:
        """End the calibration: the running session is cancelled, no other starts."""
        self.interrupted = True
        if self.session is not None:
            self.session.cancel()

    async def run(self, drive: Callable[[RunSession], Awaitable[Any]]) -> Calibration:
        """Run every session with `drive` (the front end's: it sets the executor and runs
        the session to its end); the calibration."""
        for session in self.sessions():
            if self.interrupted:  # cancelled between two sessions
                session.cancel()
            await drive(session)
        return self.calibration()

    def calibration(self) -> Calibration:
        """The calibration of what ran so far."""
        return Calibration(
            judges=judges_of(self._judged),
            labels=[plan.label for plan in self.planned],
            repeat=self.repeat,
            models=list(self.models),
            disabled=self.disabled,
            interrupted=self.interrupted,
            started=self._started,
            duration_s=time.perf_counter() - self._clock,
        )


def _verdicts(runs: Sequence[ScenarioRun]) -> list[Any]:
    # A run cancelled is not a verdict: a label whose runs all were is not judged.
    return [r.result for r in runs if r.ending is not Ending.CANCELLED]


async def calibrate(
    planned: Sequence[Planned],
    *,
    executor: Executor,
    settings: Settings,
    repeat: int = 1,
    models: Sequence[str | None] = (None,),
    root: Path | None = None,
    disabled: int = 0,
    on_job: Callable[[], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> Calibration:
    """Judge every planned label `repeat` times with each model (None: the settings'
    own) through `executor` (the CLI's drive); `stop()` true ends it early (interrupted)."""
    calibration = CalibrationRun(
        planned, settings=settings, repeat=repeat, models=models, root=root, disabled=disabled
    )

    def each(_: ScenarioRun) -> None:
        if on_job is not None:
            on_job()
        if stop is not None and stop():
            calibration.cancel()

    async def drive(session: RunSession) -> None:
        session.executor = executor
        await session.run(each)

    return await calibration.run(drive)
