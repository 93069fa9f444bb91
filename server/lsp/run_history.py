"""The editor's runs kept in the workspace's run history (`.checkspec/history.db`).

Each `checkspec.runFile` run, once it ends, is saved as `checkspec run` saves one
(source "editor"; the `history` setting of the workspace and editor decides; without a
checkspec.yaml, in the file's folder), in a
thread: the SQLite write never holds the event loop. A failure to save is logged and
changes nothing of the run's answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from checkspec.engine.executor import Outcome
    from checkspec.engine.spec.document import Document
    from checkspec.engine.spec.scenario_analysis import ScenarioEntry

    from .documents import OpenDocument

log = logging.getLogger(__name__)


async def keep(
    doc: OpenDocument,
    document: Document,
    entries: list[ScenarioEntry],
    outcomes: dict[int, Outcome],
    started: float,
    clock: float,
) -> str | None:
    """Save the run; its run id (None when not kept)."""
    duration = time.perf_counter() - clock
    try:
        return await asyncio.to_thread(_keep, doc, document, entries, outcomes, started, duration)
    except Exception:  # never the run's answer
        log.exception("the run was not kept in the history")
        return None


def _keep(
    doc: OpenDocument,
    document: Document,
    entries: list[ScenarioEntry],
    outcomes: dict[int, Outcome],
    started: float,
    duration: float,
) -> str | None:
    # Deferred: the engine's reports load with the first run (start-up time).
    from checkspec.engine.runs import RunReport, ScenarioRun, keep_run
    from checkspec.engine.settings import for_workspace

    settings = for_workspace(doc.settings, doc.workspace.root)
    # No checkspec.yaml: the file's folder (the server's own folder is nobody's workspace).
    root = doc.workspace.root or doc.folder
    runs: list[Any] = []
    for entry in entries:
        outcome = outcomes.get(entry.index)
        if outcome is None:
            continue
        runs.append(
            ScenarioRun.of(
                document, entry, outcome.result, outcome.output, outcome.ending, outcome.rerun
            )
        )
    if not runs:
        return None
    report = RunReport(
        runs=runs,
        duration_s=duration,
        started=started,
        source="editor",
        settings=settings,
        root=root,
    )
    said = io.StringIO()
    with contextlib.redirect_stderr(said):  # the server's stderr is its log
        run_id = keep_run(report, settings, root)
    if said.getvalue():
        log.warning("%s", said.getvalue().strip())
    return run_id
