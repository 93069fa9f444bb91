"""Big documents are analysed off the event loop, and a newer edit cancels a stale analysis.

A document's analysis is made when something needs it (documents.py). For a small one it
takes milliseconds and is made where it is asked for. A big one (BACKGROUND_CHARS and
more: a 45 MB dataset took 40 s) would hold the event loop as long, and so would its
edits (each a copy of the text: 40 ms at 45 MB, 300 edits 12 s): every request on every
other document waited for them. So a big document's edits are queued (`pending`, at
once), and one worker thread applies them and analyses the result, on a copy of the
document's state (its Editing: text, line index, previous analysis, window changed since),
while the loop goes on answering; whoever needs the analysis awaits it (`analysed`), and
a request on another document never does.

The worker never touches the document: its copy is installed on the loop when done (the
edits it applied leave the queue). An edit queued meanwhile cancels the analysis
(engine/spec/cancel.py: it stops at its next scenario or row, having committed nothing)
and its diagnostics are never published; the edits applied so far are kept, and the next
analysis starts from the same previous analysis over the window of every edit since, as
rust-analyzer and ruff's server do. The rare callers that need the text or the analysis
at once (a run) settle the document on the loop (`settle`).

The worker thread shares the interpreter lock with the loop; the analysis is Python code
that gives the lock up every millisecond (the switch interval, set when the worker
starts), so a request on another document waits a few switches, not the analysis.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from checkspec.engine.core.environment import process_switches

from .text_changes import apply_changes

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lsprotocol import types

    from checkspec.engine.spec.document import Document
    from checkspec.engine.spec.incremental import Editing

# Texts this long and longer are analysed in the worker thread (characters).
# (CHECKSPEC_LSP_BACKGROUND_CHARS: the server's switches, read once at its start.)
BACKGROUND_CHARS = process_switches().background_chars

_EXECUTOR: list[ThreadPoolExecutor] = []


def _executor() -> ThreadPoolExecutor:
    if not _EXECUTOR:
        _EXECUTOR.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="analysis"))
        # The worker holds the interpreter lock while it analyses: the loop (and pygls's
        # reader thread) gets it back after this interval, several times per request.
        # 5 ms by default: hovers elsewhere waited 18 ms median, 134 ms p95 during a
        # 10,000-row analysis; at 1 ms, 4 and 24 ms (bench/heavy_documents.py).
        sys.setswitchinterval(0.001)
    return _EXECUTOR[0]


@dataclass
class Job:
    """One run of the worker thread: the document's queued edits applied, then analysed."""

    flag: threading.Event = field(default_factory=threading.Event)  # set: stop analysing
    applied: int = 0  # how many queued edits it applies
    worker: Future[Editing] | None = None  # the worker thread's: the editing it made
    task: asyncio.Future[None] | None = None  # the loop's: installs it
    installed: bool = False  # settle() installed it already


class OpenDocument(Protocol):
    """What this module reads and writes of an open document (documents.py's, which
    imports this module: typed by its shape, the server's modules form no cycle)."""

    own_editing: Editing
    pending: list[tuple[Sequence[types.TextDocumentContentChangeEvent], str]]
    job: Job | None
    last_parsed: Document | None
    analysis_seconds: float


def in_background(doc: OpenDocument) -> bool:
    """This document's analysis is to be made off the loop (not made yet, and big)."""
    editing = doc.own_editing
    if doc.pending or doc.job is not None:
        return True
    return editing.current is None and len(editing.text) >= BACKGROUND_CHARS


def deferred(doc: OpenDocument) -> bool:
    """Edits of this document are queued for the worker thread, not applied on the loop."""
    return bool(doc.pending) or doc.job is not None or len(doc.own_editing.text) >= BACKGROUND_CHARS


async def analysed(doc: OpenDocument) -> Document | None:
    """The analysis of the document's text as it is now (every queued edit applied), made
    in the worker thread; None when an edit came before it was made (a newer analysis is
    then wanted)."""
    while doc.job is not None:  # one job at a time: its result is the next one's start
        assert doc.job.task is not None
        await asyncio.shield(doc.job.task)
    if not doc.pending and doc.own_editing.current is not None:
        return doc.own_editing.current
    job = _start(doc)
    assert job.task is not None
    await asyncio.shield(job.task)
    if doc.pending or doc.job is not None:
        return None
    return doc.own_editing.current


async def current_analysis(doc: OpenDocument) -> Document:
    """The analysis of the document's text, waiting for as many analyses as edits make
    stale meanwhile (a request on the document waits for typing to pause)."""
    while True:
        found = await analysed(doc)
        if found is not None:
            return found


def cancel(doc: OpenDocument) -> None:
    """An edit was queued: the running analysis is stale (the edits it applies are kept)."""
    if doc.job is not None:
        doc.job.flag.set()


def settle(doc: OpenDocument) -> None:
    """On the loop, at once: the running job stopped and installed, every queued edit
    applied (for callers that cannot await: a run, a workspace change)."""
    job = doc.job
    if job is not None and job.worker is not None:
        job.flag.set()
        try:
            made = job.worker.result()
        except BaseException:  # a bug in the worker: the edits are applied below
            made = None
        if made is not None:
            _install(doc, job, made, 0.0)
        job.installed = True
        doc.job = None
    if doc.pending:
        for changes, encoding in doc.pending:
            apply_changes(doc.own_editing, changes, encoding)
        doc.pending.clear()


def _start(doc: OpenDocument) -> Job:
    job = Job(applied=len(doc.pending))
    work = copy.copy(doc.own_editing)  # the worker's own: the document's stays as it is
    doc.job = job
    job.worker = _executor().submit(_work, work, list(doc.pending), job.flag)
    job.task = asyncio.ensure_future(_finish(doc, job))
    return job


async def _finish(doc: OpenDocument, job: Job) -> None:
    began = time.perf_counter()
    assert job.worker is not None
    try:
        made = await asyncio.wrap_future(job.worker)
    finally:
        if doc.job is job:
            doc.job = None
    if not job.installed:
        _install(doc, job, made, time.perf_counter() - began)


def _work(editing: Editing, pending: list[tuple[Any, str]], flag: threading.Event) -> Editing:
    """In the worker thread: the queued edits applied to the copy, then its analysis
    (stopped at a checkpoint once `flag` is set: the copy then has none)."""
    from checkspec.engine.spec.cancel import Cancelled, cancellable

    for changes, encoding in pending:
        apply_changes(editing, changes, encoding)
    # Cancelled: nothing was committed, the copy keeps its base and window.
    with cancellable(flag), contextlib.suppress(Cancelled):
        editing.analysis()
    return editing


def _install(doc: OpenDocument, job: Job, made: Editing, seconds: float) -> None:
    """On the loop: the worker's copy becomes the document's editing."""
    doc.own_editing = made
    del doc.pending[: job.applied]
    found = made.current
    if found is not None:
        doc.analysis_seconds = seconds
        if found.source.root is not None:
            doc.last_parsed = found
