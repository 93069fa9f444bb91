"""workspace/executeCommand: run one scenario (`checkspec.runScenario [uri, index]`) or a file
(`checkspec.runFile [uri]`).

Runs are the only place the server imports user code (targets, `fn` checks) or calls a
model. They await the engine on the server's event loop (targets run in worker threads),
so other requests are answered meanwhile. Findings are published with the document's
diagnostics (source "checkspec run") unless the text changed during the run, and the
command returns a JSON summary an editor can show.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from checkspec.engine.core.result import ScenarioResult
from checkspec.engine.settings import apply_llm_settings
from checkspec.engine.spec.document import ScenarioEntry

from ..analysis.lenses import RUN_FILE, RUN_SCENARIO
from ..analysis.run_results import run_findings, run_summary
from . import diagnostics
from .guard import guarded

if TYPE_CHECKING:
    from .documents import OpenDocument
    from .server import CheckspecServer

_STATUS_ORDER = ("error", "fail", "invalid", "skip", "pass")


def register(server: CheckspecServer) -> None:
    @server.command(RUN_SCENARIO)
    @guarded(lambda: {"error": "the run failed; see the checkspec log"})
    async def run_scenario(ls: LanguageServer, *args: Any) -> dict[str, Any]:
        uri, index = _uri_and_index(args)
        if uri is None or index is None:
            return {"error": "checkspec.runScenario takes [uri, scenario index]"}
        report = await run_file(cast("CheckspecServer", ls), uri, [index])
        scenarios = report.get("scenarios") or []
        return scenarios[0] if scenarios else report

    @server.command(RUN_FILE)
    @guarded(lambda: {"error": "the run failed; see the checkspec log"})
    async def run_all(ls: LanguageServer, *args: Any) -> dict[str, Any]:
        uri, _ = _uri_and_index(args)
        if uri is None:
            return {"error": "checkspec.runFile takes [uri]"}
        return await run_file(cast("CheckspecServer", ls), uri, None)


def _uri_and_index(args: tuple[Any, ...]) -> tuple[str | None, int | None]:
    """`[uri, index]` as lenses send it, or `[{"uri": ..., "index": ...}]`."""
    if len(args) == 1 and isinstance(args[0], dict):
        args = (args[0].get("uri"), args[0].get("index"))
    uri = args[0] if args and isinstance(args[0], str) else None
    index = args[1] if len(args) > 1 else None
    if isinstance(index, str) and index.isdigit():
        index = int(index)
    return uri, index if isinstance(index, int) and not isinstance(index, bool) else None


async def run_file(ls: CheckspecServer, uri: str, indexes: list[int] | None) -> dict[str, Any]:
    """Run the chosen scenarios of a document (all when `indexes` is None)."""
    doc = ls.store.get(uri) or ls.store.load(uri)
    if doc is None:
        return {"uri": uri, "error": "the document is neither open nor a readable file"}
    text = doc.text
    document = ls.store.analysis(doc)
    entries = [e for e in document.scenarios if indexes is None or e.index in indexes]
    if not entries:
        return {"uri": uri, "error": "no such scenario in this document", "scenarios": []}
    results = await _run(doc, entries)
    summaries = [
        run_summary(entry, result) if result is not None else _not_runnable(entry)
        for entry, result in zip(entries, results, strict=True)
    ]
    current = ls.store.get(uri)
    if current is not None and current.text == text:  # else the lines have moved: drop them
        for entry, result in zip(entries, results, strict=True):
            if result is not None:
                current.run_findings[entry.index] = run_findings(entry, result)
        diagnostics.publish(ls, uri)
    _tell(ls, summaries)
    return {"uri": uri, "status": _worst(s["status"] for s in summaries), "scenarios": summaries}


async def _run(doc: OpenDocument, entries: list[ScenarioEntry]) -> list[ScenarioResult | None]:
    settings = doc.settings
    apply_llm_settings(settings)
    base_dirs = tuple(str(d) for d in (doc.folder, doc.workspace.root) if d is not None)
    USER_MODULES.forget()
    before = set(sys.modules)
    semaphore = asyncio.Semaphore(max(1, settings.concurrency))

    async def one(entry: ScenarioEntry) -> ScenarioResult | None:
        if entry.scenario is None:
            return None
        # Analyses are cached and shared between identical texts: run a copy of our own.
        scenario = entry.scenario.model_copy()
        scenario._base_dirs = base_dirs
        scenario._target_timeout = settings.target_timeout
        async with semaphore:
            return await scenario.run(return_exception=True)

    try:
        return list(await asyncio.gather(*(one(e) for e in entries)))
    finally:
        USER_MODULES.remember(set(sys.modules) - before, base_dirs)


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


def _tell(ls: CheckspecServer, summaries: list[dict[str, Any]]) -> None:
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
        "fail": types.MessageType.Warning,
    }.get(status, types.MessageType.Error)
    ls.window_show_message(types.ShowMessageParams(type=kind, message=message))


class UserModules:
    """Modules a run imported from the workspace, forgotten before the next run.

    The server lives as long as the editor; without this an edited target module would
    keep running its old code until a restart.
    """

    def __init__(self) -> None:
        self._names: set[str] = set()

    def remember(self, names: set[str], folders: tuple[str, ...]) -> None:
        roots = [Path(f).resolve() for f in folders]
        # Never the server's own code or installed packages, even inside the workspace
        # (a checkout of checkspec, a .venv in the project folder).
        installed = [Path(p).resolve() for p in {sys.prefix, sys.base_prefix}]
        for name in names:
            if name == "checkspec" or name.startswith("checkspec."):
                continue
            file = getattr(sys.modules.get(name), "__file__", None)
            if not file:
                continue
            path = Path(file).resolve()
            if "site-packages" in path.parts or any(path.is_relative_to(p) for p in installed):
                continue
            if any(path.is_relative_to(root) for root in roots):
                self._names.add(name)

    def forget(self) -> None:
        for name in self._names:
            sys.modules.pop(name, None)
        self._names.clear()


USER_MODULES = UserModules()
