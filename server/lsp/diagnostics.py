"""Diagnostics: the document's problems, plus the findings of its last run.

Pushed to clients that do not pull (LSP 3.17 pull clients ask: pull_diagnostics.py; they
are told to ask again when something else than their text changed, `refresh_soon`).
Not a request: publishing is driven by the documents' sync (sync.py), their workspace's
changes (configuration.py) and runs (commands.py). Static problems are published as soon
as a document opens and after a pause in typing about as long as the last analysis took
(an edit inside a scenario is re-read in milliseconds); run findings ("checkspec run")
stay until the text changes, since their lines would no longer be right.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsprotocol import types

from .background import analysed, in_background
from .convert import RUN_SOURCE, to_diagnostic
from .guard import report

if TYPE_CHECKING:
    from checkspec.engine.spec.problems import Problem

    from .documents import OpenDocument
    from .host import Host


def diagnostics_of(ls: Host, doc: OpenDocument) -> list[types.Diagnostic]:
    document = ls.store.analysis(doc)
    if document.failure is not None:  # shown as a problem at the file; the log gets the trace
        report(ls, f"analysing {doc.uri}", document.failure)
    if document.kind is None:
        # Not a spec file by name or $schema: an editor may send any YAML; stay quiet.
        return []
    codec = ls.codec(doc)
    found = [to_diagnostic(problem, codec) for problem in document.all_problems]
    if (notice := config_notice(doc)) is not None:
        found.append(to_diagnostic(notice, codec))
    from . import file_encoding  # with the analysis, not at start-up

    saved_as = file_encoding.on_disk(doc.path, doc.workspace.config.size_limit(doc.path)[0])
    if saved_as is not None:  # the editor decoded it; the CLI will refuse the file
        found.append(to_diagnostic(saved_as, codec))
    for findings in doc.run_findings.values():
        found.extend(to_diagnostic(finding, codec, RUN_SOURCE) for finding in findings)
    return found


def config_notice(doc: OpenDocument) -> Problem | None:
    """On a spec file whose checkspec.yaml cannot be used (errors, another user's): a
    warning at its head that the file's settings are not in force and runs are refused,
    as the CLI refuses them (the problems themselves are the config file's own)."""
    from checkspec.engine.settings import config_errors
    from checkspec.engine.spec.problems import Problem, Range, Severity

    config = doc.workspace.config_path
    if doc.is_config or config is None or not (errors := config_errors(doc.workspace)):
        return None
    first = errors[0].format(str(config))
    message = (
        f"{config} is not in force ({len(errors)} problem(s), first: {first}): this file is "
        "analysed with default settings and runs are refused until it is fixed"
    )
    return Problem("config-not-in-force", message, Range.point(0, 0), Severity.WARNING)


def publish(ls: Host, uri: str) -> None:
    _cancel_pending(ls, uri)
    if pulls(ls):  # the client pulls (pull_diagnostics.py): tell it to, never push
        refresh_soon(ls)
        return
    doc = ls.store.get(uri)
    if doc is None:
        return
    if in_background(doc):  # analysed off the loop; published once made (background.py)
        ls.spawn(_publish_when_analysed(ls, doc))
        return
    try:
        found = diagnostics_of(ls, doc)
    except Exception as exc:  # an analysis bug must not silence the other documents
        report(ls, f"analysing {uri}", exc)
        found = []
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=doc.version)
    )


async def _publish_when_analysed(ls: Host, doc: OpenDocument) -> None:
    """Publish a big document's diagnostics once its analysis is made; nothing when an
    edit made it stale meanwhile (that edit's diagnostics follow: publish_soon)."""
    try:
        found = await analysed(doc)
    except Exception as exc:  # an analysis bug must not silence the other documents
        report(ls, f"analysing {doc.uri}", exc)
        return
    if found is not None and ls.store.get(doc.uri) is doc:
        publish(ls, doc.uri)  # analysed now: published at once


def publish_soon(ls: Host, uri: str) -> None:
    """Publish after a pause in typing as long as the last analysis after a change took.

    Between MIN_DELAY and `ls.debounce`: an edit re-read in a few milliseconds is shown at
    once, while a slow analysis (a change to the file's own lines in a huge file) waits
    for typing to pause, so at most about half the time goes to analyses made stale by
    the next keystroke.
    """
    _cancel_pending(ls, uri)
    if pulls(ls):  # a pulling client pulls after each change of the text by itself
        return
    doc = ls.store.get(uri)
    wait = delay(doc.change_seconds if doc is not None else ls.debounce, ls.debounce)
    loop = asyncio.get_running_loop()
    ls.timers[uri] = loop.call_later(wait, _publish_changed, ls, uri)


MIN_DELAY = 0.005


def delay(last_analysis: float, longest: float) -> float:
    """How long diagnostics wait after a change: as long as the last analysis took."""
    return min(longest, max(MIN_DELAY, last_analysis))


def _publish_changed(ls: Host, uri: str) -> None:
    publish(ls, uri)
    doc = ls.store.get(uri)
    if doc is not None:
        doc.change_seconds = doc.analysis_seconds


def clear(ls: Host, uri: str) -> None:
    _cancel_pending(ls, uri)
    if pulls(ls):  # a closed file may still be listed from disk (scope workspace)
        refresh_soon(ls)
        return
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def _cancel_pending(ls: Host, uri: str) -> None:
    timer = ls.timers.pop(uri, None)
    if timer is not None:
        timer.cancel()


# Pull clients (LSP 3.17: pull_diagnostics.py) ------------------------------------------


def pulls(ls: Host) -> bool:
    """The client asks for diagnostics (LSP 3.17 pull): the server then never pushes."""
    try:
        text_document = ls.client_capabilities.text_document
    except (AttributeError, RuntimeError):  # not initialized yet
        return False
    return text_document is not None and text_document.diagnostic is not None


_REFRESHES: dict[int, asyncio.TimerHandle] = {}
REFRESH_DELAY = 0.1


def refresh_soon(ls: Host) -> None:
    """Ask a pulling client to pull again (workspace/diagnostic/refresh): once for a burst
    of changes (run findings, settings, checkspec.yaml, files changed on disk)."""
    if not pulls(ls) or not _can_refresh(ls):
        return
    pending = _REFRESHES.pop(id(ls), None)
    if pending is not None:
        pending.cancel()
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    _REFRESHES[id(ls)] = loop.call_later(REFRESH_DELAY, _refresh, ls)


def _can_refresh(ls: Host) -> bool:
    workspace = ls.client_capabilities.workspace
    diagnostics = workspace.diagnostics if workspace else None
    return bool(diagnostics and diagnostics.refresh_support)


def _refresh(ls: Host) -> None:
    _REFRESHES.pop(id(ls), None)
    ls.workspace_diagnostic_refresh(None)
