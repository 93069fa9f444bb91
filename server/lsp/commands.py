"""workspace/executeCommand: run one scenario (`checkspec.runScenario [uri, index]`) or a file
(`checkspec.runFile [uri]` or `[uri, [indexes]]`, and a third argument
`{"repeat": K, "includeDrafts": true}` with `null` for every index).

The scenarios run in worker processes (runs.py); this module turns their outcomes into
what the editor shows: findings published with the document's diagnostics (source
"checkspec run") as each scenario finishes, unless the text changed meanwhile, and a
JSON answer listing every scenario asked for (finished, not runnable or cancelled).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..analysis.command_names import RUN_FILE, RUN_SCENARIO, SHOW_LAST_RUN
from . import diagnostics, run_history
from .feature import command
from .host import Host  # at run time: pygls reads the commands' annotations
from .last_runs import refresh_views
from .runs import SCENARIO_FINISHED, config_refusal, findings_of, summary_of

if TYPE_CHECKING:  # the engine's executor loads with the first run
    from checkspec.engine.runs import ScenarioRun
    from checkspec.engine.spec.scenario_analysis import ScenarioEntry

_STATUS_ORDER = ("error", "fail", "invalid", "cancelled", "skip", "pass")
_PUBLISH_EVERY_SECONDS = 0.2


@command(RUN_SCENARIO, empty=lambda: {"error": "the run failed; see the checkspec log"})
async def run_scenario(ls: Host, *args: Any) -> dict[str, Any]:
    uri, index = _uri_and_index(args)
    if uri is None or index is None:
        return {"error": "checkspec.runScenario takes [uri, scenario index]"}
    report = await run_file(ls, uri, [index])
    scenarios = report.get("scenarios") or []
    return scenarios[0] if scenarios else report


@command(RUN_FILE, empty=lambda: {"error": "the run failed; see the checkspec log"})
async def run_all(ls: Host, *args: Any) -> dict[str, Any]:
    uri, _ = _uri_and_index(args)
    chosen = args[1] if len(args) > 1 else None
    indexes = _indexes(chosen) if chosen is not None else None
    options = args[2] if len(args) > 2 else {}
    repeat = options.get("repeat", 1) if isinstance(options, dict) else None
    drafts = options.get("includeDrafts") if isinstance(options, dict) else None
    if (
        uri is None
        or (chosen is not None and indexes is None)
        or not isinstance(repeat, int)
        or isinstance(repeat, bool)
        or repeat < 1
        or (drafts is not None and not isinstance(drafts, bool))
    ):
        return {
            "error": "checkspec.runFile takes [uri] or [uri, [scenario indexes]], and "
            'options third: [uri, indexes or null, {"repeat": K, "includeDrafts": true}]'
        }
    return await run_file(ls, uri, indexes, repeat=repeat, include_drafts=drafts)


@command(
    SHOW_LAST_RUN, empty=lambda: {"error": "could not read the last run; see the checkspec log"}
)
def show_last_run(ls: Host, *args: Any) -> dict[str, Any]:
    uri, index = _uri_and_index(args)
    if uri is None or index is None:
        return {"error": f"{SHOW_LAST_RUN} takes [uri, scenario index]"}
    return last_run(ls, uri, index)


def _indexes(value: Any) -> list[int] | None:
    """A list of scenario indexes, or None when it is not one."""
    if not isinstance(value, list):
        return None
    if not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in value):
        return None
    return value


def _uri_and_index(args: tuple[Any, ...]) -> tuple[str | None, int | None]:
    """`[uri, index]` as lenses send it, or `[{"uri": ..., "index": ...}]`."""
    if len(args) == 1 and isinstance(args[0], dict):
        args = (args[0].get("uri"), args[0].get("index"))
    uri = args[0] if args and isinstance(args[0], str) else None
    index = args[1] if len(args) > 1 else None
    if isinstance(index, str) and index.isdigit():
        index = int(index)
    return uri, index if isinstance(index, int) and not isinstance(index, bool) else None


async def run_file(
    ls: Host,
    uri: str,
    indexes: list[int] | None,
    *,
    repeat: int = 1,
    include_drafts: bool | None = None,
) -> dict[str, Any]:
    """Run the chosen scenarios of a document (all when `indexes` is None), each `repeat`
    times folded into one verdict (as `checkspec run --repeat`). Drafts (`status: draft`)
    run when asked (`include_drafts`) or named (runScenario, runFile with indexes), as
    `checkspec run` runs them with --include-drafts; a whole file leaves them out."""
    # Deferred: the engine's executor loads with the first run (start-up time).
    from checkspec.engine.executor import Ending, WorkerStartError

    doc = ls.store.get(uri) or ls.store.load(uri)
    if doc is None:
        return {"uri": uri, "error": "the document is neither open nor a readable file"}
    text = doc.text
    document = ls.store.analysis(doc)
    entries = [e for e in document.scenarios if indexes is None or e.index in indexes]
    if not entries:
        return {"uri": uri, "error": "no such scenario in this document", "scenarios": []}
    if (refused := config_refusal(doc)) is not None:  # never a run with defaults instead
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=refused)
        )
        return {"uri": uri, "status": "error", "error": refused, "scenarios": []}
    publisher = _Publisher(ls, uri, text)
    # Read while the run registers itself: an await before it would let a second run of
    # the same scenarios, or a $/cancelRequest, arrive before this run can be replaced
    # or cancelled (runs.run awaits it before the first scenario starts).
    previous_read = asyncio.ensure_future(_previous_verdicts(ls, uri, entries))

    shown: dict[int, dict[str, Any]] = {}  # each finished scenario's summary, by index

    def show(entry: ScenarioEntry, run: ScenarioRun) -> None:
        shown[entry.index] = summary_of(entry, run)
        ls.protocol.notify(SCENARIO_FINISHED, {"uri": uri, **shown[entry.index]})
        if run.ending is not Ending.CANCELLED:
            summary = summary_of(entry, run, transcript=True)
            # Read before the first scenario started (runs.run awaits it).
            previous = previous_read.result() if previous_read.done() else {}
            if entry.name in previous:  # the transcript says when the verdict changed
                summary["previous"] = previous[entry.name]
            result = run.result
            answered = (
                None
                if result.replayed or run.ending is not Ending.FINISHED
                else tuple(i.outputs for i in result.final_trace.interactions)
            )
            ls.last_runs.record(uri, text, entry, summary, answered)
        publisher.add(entry, run)

    drafts = indexes is not None if include_drafts is None else include_drafts
    try:
        ran, cancelled, session = await ls.runs.run(
            ls,
            doc,
            document,
            entries,
            show,
            include_drafts=drafts,
            repeat=repeat,
            before=previous_read,
        )
    except WorkerStartError as exc:
        message = f"checkspec could not start its worker processes: {exc}"
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=message)
        )
        return {"uri": uri, "status": "error", "error": message, "scenarios": []}
    publisher.flush()
    refresh_views(ls)
    run_id = await run_history.keep(session)
    summaries = [
        shown[entry.index]
        if entry.index in shown
        else summary_of(entry, ran[entry.index])  # cancelled before it started
        if entry.index in ran
        else _not_runnable(entry)
        if entry.scenario is None
        else _draft(entry)
        for entry in entries
    ]
    if not publisher.progress_shown:
        _tell(ls, summaries)
    status = _worst(s["status"] for s in summaries)
    return {
        "uri": uri,
        "status": status,
        "cancelled": cancelled,
        "scenarios": summaries,
        "runId": run_id,
    }


async def _previous_verdicts(
    ls: Host, uri: str, entries: list[ScenarioEntry]
) -> dict[str, dict[str, Any]]:
    """The scenarios' last recorded verdicts (the run history), read in a thread; none
    when there is no history or it cannot be read (the run goes on)."""
    import asyncio
    from pathlib import Path

    from pygls.uris import to_fs_path

    from ..analysis.run_history import previous_verdicts

    path = to_fs_path(uri) if uri.startswith("file:") else None
    if path is None:
        return {}
    try:
        root = ls.store.workspaces.root_of(path)
        names = [e.name for e in entries]
        return await asyncio.to_thread(previous_verdicts, Path(path), root, names)
    except Exception as exc:  # a history that cannot be read never stops a run
        ls.log(f"checkspec: the run history could not be read: {exc}")
        return {}


class _Publisher:
    """Publishes findings as scenarios finish, at most every 0.2 s (a file may hold 1,000s)."""

    def __init__(self, ls: Host, uri: str, text: str) -> None:
        self._ls, self._uri, self._text = ls, uri, text
        self._last = 0.0
        self._dirty = False
        self.progress_shown = ls.client_capabilities.window is not None and bool(
            ls.client_capabilities.window.work_done_progress
        )

    def add(self, entry: ScenarioEntry, run: ScenarioRun) -> None:
        current = self._ls.store.get(self._uri)
        if current is None or current.text != self._text:  # the lines have moved: drop them
            return
        current.run_findings[entry.index] = findings_of(entry, run)
        self._dirty = True
        now = time.monotonic()
        if now - self._last >= _PUBLISH_EVERY_SECONDS:
            self._last = now
            self.flush()

    def flush(self) -> None:
        if self._dirty:
            self._dirty = False
            diagnostics.publish(self._ls, self._uri)


def last_run(ls: Host, uri: str, index: int) -> dict[str, Any]:
    """The last run of a scenario with its transcript, if it is still true of the text."""
    doc = ls.store.get(uri) or ls.store.load(uri)
    if doc is None:
        return {"uri": uri, "error": "the document is neither open nor a readable file"}
    found = ls.last_runs.current(doc, ls.store.analysis(doc), index)
    if found is None:
        return {"uri": uri, "index": index, "error": "this scenario has not run since it changed"}
    return {"uri": uri, **found.summary}


def _draft(entry: ScenarioEntry) -> dict[str, Any]:
    return {
        "scenario": entry.name,
        "index": entry.index,
        "line": entry.head.start.line,
        "status": "skip",
        "summary": f"{entry.name}: a draft (status: draft), not run",
        "checks": [],
        "errors": [],
    }


def _not_runnable(entry: ScenarioEntry) -> dict[str, Any]:
    count = sum(1 for p in entry.problems if p.severity.value == "error")
    return {
        "scenario": entry.name,
        "index": entry.index,
        "line": entry.head.start.line,
        "status": "invalid",
        "summary": f"{entry.name}: not run — fix its {count} problem{'s' if count != 1 else ''} first",
        "checks": [],
        "errors": [],
    }


def _worst(statuses: Iterable[str]) -> str:
    found = set(statuses)
    return next((s for s in _STATUS_ORDER if s in found), "pass")


def _tell(ls: Host, summaries: list[dict[str, Any]]) -> None:
    """One message for the whole run, for clients without work-done progress."""
    status = _worst(s["status"] for s in summaries)
    if len(summaries) == 1:
        message = summaries[0]["summary"]
    else:
        counts: dict[str, int] = {}
        for summary in summaries:
            counts[summary["status"]] = counts.get(summary["status"], 0) + 1
        parts = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        message = f"checkspec: {len(summaries)} scenarios — {parts}"
    kind = {
        "pass": types.MessageType.Info,
        "skip": types.MessageType.Info,
        "cancelled": types.MessageType.Info,
        "fail": types.MessageType.Warning,
    }.get(status, types.MessageType.Error)
    ls.window_show_message(types.ShowMessageParams(type=kind, message=message))
