"""Runs started from the editor: a warm pool of worker processes, progress, cancellation.

User code never runs in the server: scenarios go to worker processes (engine
executor), and the server only schedules them and shows their results. Each result
is shown as its scenario finishes (diagnostics at the checks' lines, work-done progress,
a `checkspec/scenarioFinished` notification for clients that list tests).

A run is cancelled by `$/cancelRequest` of its command or `window/workDoneProgress/
cancel` of its progress: scenarios not started are not started, running workers are
killed, and the command answers with what finished, the rest marked cancelled.

The pool is started by the first run and kept warm afterwards (fresh processes: each run
imports the workspace's modules afresh, so an edited agent is used at once). Runs of
different files or scenarios proceed side by side, each on workers of its own (at most
the pool's size in all; a run that finds none free waits for one), each with its own
progress and cancellation. A run of the same scenarios of the same file again replaces
the running one (it is cancelled: what finished stays, the rest is marked cancelled).
How many runs are going is sent as `checkspec/runs` (`{"running": n}`) when it changes.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lsprotocol import types

if TYPE_CHECKING:  # the engine's executor loads with the first run
    from checkspec.engine.executor import WorkerPool
    from checkspec.engine.runs import RunSession, ScenarioRun
    from checkspec.engine.settings import Settings
    from checkspec.engine.spec.document import Document
    from checkspec.engine.spec.scenario_analysis import ScenarioEntry

    from .client import Client
    from .documents import OpenDocument

SCENARIO_FINISHED = "checkspec/scenarioFinished"
RUNS = "checkspec/runs"  # {"running": n}: how many runs are going, sent when it changes
_SHOW_EVERY_SECONDS = 0.2  # diagnostics and progress during a run, at most this often
_tokens = itertools.count(1)


@dataclass
class RunTally:
    total: int
    done: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, status: str) -> None:
        self.done += 1
        self.counts[status] = self.counts.get(status, 0) + 1

    def text(self) -> str:
        """`12/40, 1 failed, 2 errored`."""
        bad = [
            f"{n} {word}"
            for status, word in (("fail", "failed"), ("error", "errored"))
            if (n := self.counts.get(status, 0))
        ]
        return ", ".join([f"{self.done}/{self.total}", *bad])


class Runs:
    """The server's runs and the worker pool they share."""

    def __init__(self) -> None:
        self._pool: WorkerPool | None = None
        self._pool_key: tuple[Any, ...] | None = None
        self._users: dict[WorkerPool, int] = {}  # runs on each pool (an old one closes after)
        self._pool_change = asyncio.Lock()
        # The running runs by what they run (uri, scenario indexes): the same again
        # replaces it.
        self._running: dict[tuple[str, tuple[int, ...]], Callable[[], None]] = {}
        self._count = 0

    async def _pool_for(self, settings: Settings) -> WorkerPool:
        # Deferred: the engine's executor loads with the first run (start-up time).
        from checkspec.engine.executor import WorkerPool
        from checkspec.engine.executor.start import executor_for

        key = (settings.python, settings.jobs, settings.concurrency)
        async with self._pool_change:
            if self._pool is None or self._pool_key != key:
                old = self._pool
                pool = executor_for(settings, keep_warm=True)
                assert isinstance(pool, WorkerPool)
                self._pool, self._pool_key = pool, key
                if old is not None and not self._users.get(old):
                    self._users.pop(old, None)
                    await old.aclose()  # else closed when its last run ends
            self._users[self._pool] = self._users.get(self._pool, 0) + 1
            return self._pool

    async def _done_with(self, pool: WorkerPool) -> None:
        if pool not in self._users:  # closed meanwhile (shutdown)
            return
        self._users[pool] -= 1
        if pool is not self._pool and not self._users[pool]:
            del self._users[pool]
            await pool.aclose()

    async def call(
        self,
        settings: Settings,
        function: Callable[[Any, Callable[[Any], None]], Awaitable[Any]],
        argument: Any,
        on_event: Callable[[Any], None] | None = None,
        handle: Any = None,
    ) -> Any:
        """`function(argument, emit)` in a worker of the warm pool (the editor's generation:
        engine/executor/pool.py `WorkerPool.call`); raises what the pool's call raises."""
        pool = await self._pool_for(settings)
        try:
            return await pool.call(function, argument, on_event, handle)
        finally:
            await self._done_with(pool)

    async def aclose(self) -> None:
        for cancel in list(self._running.values()):  # they answer with what finished
            cancel()
        for pool in {*self._users, *([self._pool] if self._pool else [])}:
            await pool.aclose()
        self._users.clear()
        self._pool = None

    def _counted(self, ls: Client, delta: int) -> None:
        self._count += delta
        ls.protocol.notify(RUNS, {"running": self._count})

    @property
    def running(self) -> int:
        return self._count

    async def run(
        self,
        ls: Client,
        doc: OpenDocument,
        document: Document,
        entries: list[ScenarioEntry],
        on_run: Callable[[ScenarioEntry, ScenarioRun], None],
        *,
        include_drafts: bool = True,
        repeat: int = 1,
        before: Awaitable[Any] | None = None,
    ) -> tuple[dict[int, ScenarioRun], bool, RunSession]:
        """Run the runnable entries through a run session (engine/runs/); their runs by
        entry index (repeats folded; one not run: cancelled), whether cancelled, and the
        session (its report is kept). `on_run` sees each scenario's as it ends."""
        from checkspec.engine.runs import RunSession

        settings = settings_of(doc)
        session = RunSession(
            [(document, e) for e in entries],
            settings=settings,
            include_drafts=include_drafts,
            repeat=repeat,
            source="editor",
            root=root_of(doc),
            prepare=placing(doc, settings),
            handle=stream_handle(),
        )
        runs: dict[int, ScenarioRun] = {}

        def each(entry: ScenarioEntry, run: ScenarioRun) -> None:
            runs[entry.index] = run
            on_run(entry, run)

        what = (doc.uri, tuple(sorted(entry.index for _, entry in session.todo)))
        cancelled = await self.drive(ls, session, each, what=what, before=before)
        for shown, entry in session.todo:  # cancelled before they started
            runs.setdefault(
                entry.index, _cancelled(shown, entry, session.identity(shown.path, entry))
            )
        return runs, cancelled, session

    async def drive(
        self,
        ls: Client,
        session: RunSession,
        on_run: Callable[[ScenarioEntry, ScenarioRun], None],
        *,
        what: tuple[Any, ...],
        before: Awaitable[Any] | None = None,
    ) -> bool:
        """Run a session on the warm pool with work-done progress and cancellation (by
        the request, its progress, or the same `what` run again); whether cancelled.

        Nothing is awaited before the run is registered (to be replaced by the same run
        again, or cancelled by its request id); `before` is awaited after that, before the
        first scenario starts."""

        def cancel() -> None:
            session.cancel()

        # The same scenarios of the same file again: the running one is replaced.
        replaced = self._running.pop(what, None)
        if replaced is not None:
            replaced()
        self._running[what] = cancel
        request = ls.protocol.msg_id
        ls.protocol.on_cancel(request, cancel)
        self._counted(ls, +1)
        progress: Progress | None = None
        try:
            if before is not None:
                await before
            progress = await Progress.start(ls, len(session.todo), session.repeat)
            progress.on_cancel(cancel)
            if session.cancelled or not session.todo:
                return session.cancelled
            pool = session.executor = await self._pool_for(session.settings)
            try:
                async for n, run in session.results(progress.add):
                    on_run(session.todo[n][1], run)
            finally:
                await self._done_with(pool)
        finally:
            ls.protocol.cancel_hooks.pop(request, None)
            if self._running.get(what) is cancel:
                del self._running[what]
            self._counted(ls, -1)
            if progress is not None:
                progress.end(session.cancelled)
        return session.cancelled


def settings_of(doc: OpenDocument) -> Settings:
    """The settings a run of the document runs with (its workspace's, the editor's)."""
    from checkspec.engine.settings import for_workspace

    return for_workspace(doc.settings, doc.workspace.root)


def root_of(doc: OpenDocument) -> Any:
    # No checkspec.yaml: the file's folder (the server's own is nobody's workspace).
    return doc.workspace.root or doc.folder


def stream_handle() -> Any:
    """A handle cancelling one session's stream alone on the shared pool."""
    from checkspec.engine.executor.pool import StreamHandle

    return StreamHandle()


def placing(doc: OpenDocument, settings: Settings) -> Callable[[ScenarioEntry], Any]:
    """What a session's `prepare` is in the editor: each scenario a copy of its own."""
    return lambda entry: _own_copy(entry, doc, settings)


def config_refusal(doc: OpenDocument) -> str | None:
    """Why the document's checkspec.yaml stops its runs (errors, another user's), as the
    CLI says it (engine/settings.py: ConfigUnreadable); None when it can be used."""
    from checkspec.engine.settings import ConfigUnreadable, require_readable

    try:
        require_readable(doc.workspace)
    except ConfigUnreadable as exc:
        return "\n".join(exc.lines())
    return None


def _own_copy(entry: ScenarioEntry, doc: OpenDocument, settings: Settings) -> Any:
    # Analyses are cached and shared between identical texts: run a copy of our own.
    assert entry.scenario is not None  # only runnable entries are run
    folders = [str(d) for d in (doc.folder, doc.workspace.root) if d is not None]
    return entry.scenario.placed(folders, settings.target_timeout)


def _cancelled(document: Document, entry: ScenarioEntry, identity: str) -> ScenarioRun:
    # Deferred: the engine's executor loads with the first run (start-up time).
    from checkspec.engine.executor import Ending
    from checkspec.engine.executor.jobs import not_run
    from checkspec.engine.runs import ScenarioRun

    assert entry.scenario is not None  # only runnable entries are planned
    why = "not run: the run was cancelled"
    result = not_run(entry.scenario, why)
    return ScenarioRun.of(document, entry, result, ending=Ending.CANCELLED, identity=identity)


class Progress:
    """Work-done progress of one run (the client's token, or one we create), throttled."""

    def __init__(self, ls: Client, token: types.ProgressToken | None, total: int):
        self._ls = ls
        self.token = token
        self.tally = RunTally(total)
        self._last = 0.0

    @classmethod
    async def start(cls, ls: Client, scenarios: int, repeat: int = 1) -> Progress:
        """Progress of `scenarios` run `repeat` times each (each run counts)."""
        token = ls.protocol.work_done_tokens.get(ls.protocol.msg_id)
        if token is None and _supports_progress(ls):
            token = f"checkspec-run-{next(_tokens)}"
            try:
                await ls.work_done_progress.create_async(token)
            except Exception:  # the client refused: run without progress
                token = None
        progress = cls(ls, token, scenarios * repeat)
        if token is not None:
            what = "1 scenario" if scenarios == 1 else f"{scenarios} scenarios"
            what += f" {repeat} times" if repeat > 1 else ""
            ls.work_done_progress.begin(
                token,
                types.WorkDoneProgressBegin(
                    title="checkspec", message=f"Running {what}", cancellable=True, percentage=0
                ),
            )
        return progress

    def on_cancel(self, cancel: Callable[[], None]) -> None:
        if self.token is None:
            return
        future = self._ls.work_done_progress.tokens.get(self.token)
        if future is not None:
            future.add_done_callback(lambda f: cancel() if f.cancelled() else None)

    def report(self, message: str | None) -> None:
        if self.token is not None and message:
            self._ls.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=message)
            )

    def add(self, run: ScenarioRun) -> None:
        """One job ended (each repeat counts)."""
        self.tally.add(run.result.status.value)
        now = time.monotonic()
        if self.token is None or (
            now - self._last < _SHOW_EVERY_SECONDS and self.tally.done < self.tally.total
        ):
            return
        self._last = now
        percentage = int(100 * self.tally.done / max(1, self.tally.total))
        self._ls.work_done_progress.report(
            self.token,
            types.WorkDoneProgressReport(message=self.tally.text(), percentage=percentage),
        )

    def end(self, cancelled: bool) -> None:
        if self.token is None:
            return
        message = self.tally.text() + (" (cancelled)" if cancelled else "")
        self._ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
        self._ls.work_done_progress.tokens.pop(self.token, None)


def _supports_progress(ls: Client) -> bool:
    window = ls.client_capabilities.window
    return bool(window and window.work_done_progress)


def summary_of(
    entry: ScenarioEntry, run: ScenarioRun, *, transcript: bool = False
) -> dict[str, Any]:
    """The editor's summary of a scenario (with its runs' tally when it was run K times);
    a cancelled one says so instead of "skip"."""
    # Deferred: the engine's executor loads with the first run (start-up time).
    from checkspec.engine.executor import Ending
    from checkspec.engine.llm.snapshot import redactor

    from ..analysis.run_results import run_summary

    summary = run_summary(entry, run.result, transcript=transcript, repeats=run.repeats)
    summary["output"] = run.output
    if run.ending is Ending.CANCELLED:
        summary["status"] = "cancelled"
        summary["summary"] = f"{entry.name}: cancelled"
    # What the transcript view, the hover and the results in place show: no secret an
    # endpoint echoed or an output printed (core/redact.py).
    return redactor().tree(summary)


def findings_of(entry: ScenarioEntry, run: ScenarioRun) -> list[Any]:
    # Deferred: the engine's executor loads with the first run (start-up time).
    from checkspec.engine.executor import Ending

    from ..analysis.run_results import run_findings

    if run.ending is Ending.CANCELLED:
        return []
    return run_findings(entry, run.result, run.repeats)
