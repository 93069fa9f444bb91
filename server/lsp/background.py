"""Big documents are analysed off the event loop, and a newer edit cancels a stale analysis.

A document's analysis is made when something needs it (documents.py). For a small one it
takes milliseconds and is made where it is asked for. A big one (BACKGROUND_CHARS and
more: a 45 MB dataset took 40 s) would hold the event loop as long: every request on every
other document waited for it. So its analysis runs in one worker thread, on a snapshot
(the text, its line index, the last analysis and the window changed since), while the
loop goes on answering; whoever needs it awaits it (`analysed`), and a request on
another document never does.

The snapshot is the one rust-analyzer's and ruff's servers take: the worker thread never
touches the document. Its result is installed on the loop, and only for the text it was
made from. An edit made meanwhile cancels the analysis (engine/spec/cancel.py: it stops
at its next scenario or row, having committed nothing) and its diagnostics are never
published; the next one starts from the same previous analysis, over the window of every
edit since. When the analysis was past its last checkpoint, its result still serves as
the base of the next (with the window of the edits made since it started).

The worker thread shares the interpreter lock with the loop; the analysis is Python code
that gives the lock up every few milliseconds (sys.setswitchinterval), so a request on
another document waits a few switches, not the analysis.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from checkspec.engine.spec.document import Document
    from checkspec.engine.spec.incremental import Window

    from .documents import OpenDocument

# Texts this long and longer are analysed in the worker thread (characters).
BACKGROUND_CHARS = int(os.environ.get("CHECKSPEC_LSP_BACKGROUND_CHARS", "") or 1_000_000)

_EXECUTOR: list[ThreadPoolExecutor] = []


def _executor() -> ThreadPoolExecutor:
    if not _EXECUTOR:
        _EXECUTOR.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="analysis"))
    return _EXECUTOR[0]


@dataclass
class Job:
    """One analysis in the worker thread, of the text the document had when it started."""

    text: str
    workspace: Any
    flag: threading.Event = field(default_factory=threading.Event)
    since: Window | None = None  # the edits made after it started (None: none, or unknown)
    edits_known: bool = True  # False: a change we could not follow (a whole text)
    worker: Future[Document] | None = None  # the worker thread's
    task: asyncio.Future[Document | None] | None = None  # the loop's: installs the result
    abandoned: bool = False  # the store analysed the document itself: install nothing

    def edited(self, start: int, end: int, length: int) -> None:
        """An edit of the document made while this job runs: it is stale, stop it."""
        from checkspec.engine.spec.incremental import Window

        self.flag.set()
        self.since = (
            Window.of(start, end, length)
            if self.since is None
            else self.since.then(start, end, length)
        )

    def lost_track(self) -> None:
        self.flag.set()
        self.edits_known = False


def in_background(doc: OpenDocument) -> bool:
    """This document's analysis is to be made off the loop (not made yet, and big)."""
    return doc.editing.current is None and len(doc.text) >= BACKGROUND_CHARS


async def analysed(doc: OpenDocument) -> Document | None:
    """The analysis of the document's text as it is now, made in the worker thread; None
    when the text changed before it was made (a newer analysis is then wanted)."""
    found = doc.editing.current
    if found is not None:
        return found
    text = doc.text
    job = doc.job
    if job is None or job.text is not text or job.flag.is_set():
        job = _start(doc)
    assert job.task is not None
    await asyncio.shield(job.task)
    found = doc.editing.current
    return found if found is not None and doc.text is text else None


async def current_analysis(doc: OpenDocument) -> Document:
    """The analysis of the document's text, waiting for as many analyses as edits make
    stale meanwhile (a request on the document waits for typing to pause)."""
    while True:
        found = await analysed(doc)
        if found is not None:
            return found


def stop(doc: OpenDocument) -> None:
    """The document is analysed elsewhere (on the loop) or closed: its job installs
    nothing, and stops at its next checkpoint; the caller does not wait for it."""
    job = doc.job
    if job is not None:
        job.abandoned = True
        job.flag.set()
        doc.job = None


def wait_stopped(doc: OpenDocument) -> None:
    """Stop the document's job and wait for the worker thread to leave it (it shares the
    document's previous analysis, which the caller is about to use)."""
    job = doc.job
    stop(doc)
    if job is None or job.worker is None:
        return
    try:
        job.worker.result()
    except BaseException:  # noqa: S110 - cancelled or failed: done with the document
        pass


def _start(doc: OpenDocument) -> Job:
    stop(doc)
    editing = doc.editing
    job = Job(editing.text, editing.workspace)
    snapshot = (
        editing.base,
        editing.window,
        editing.text,
        editing.lines,
        editing.workspace,
        editing.kind,
        editing.path,
    )
    doc.job = job
    job.worker = _executor().submit(_analyse, snapshot, job.flag)
    job.task = asyncio.ensure_future(_finish(doc, job))
    return job


async def _finish(doc: OpenDocument, job: Job) -> Document | None:
    began = time.perf_counter()
    try:
        assert job.worker is not None
        found: Document | None = await asyncio.wrap_future(job.worker)
    except BaseException as exc:
        from checkspec.engine.spec.cancel import Cancelled

        if isinstance(exc, Cancelled):
            found = None
        else:
            raise
    finally:
        if doc.job is job:
            doc.job = None
    if found is None or job.abandoned:
        return None
    _install(doc, job, found, time.perf_counter() - began)
    return found


def _analyse(snapshot: tuple[Any, ...], flag: threading.Event) -> Document:
    """In the worker thread: what Editing.analysis makes, without touching the document."""
    from checkspec.engine.spec.cancel import cancellable
    from checkspec.engine.spec.document import analyze
    from checkspec.engine.spec.incremental import reanalyze

    base, window, text, lines, workspace, kind, path = snapshot
    with cancellable(flag):
        if base is not None and window is not None:
            return reanalyze(base, text, window, workspace, kind=kind, lines=lines)
        return analyze(text, path, workspace, kind=kind)


def _install(doc: OpenDocument, job: Job, found: Document, seconds: float) -> None:
    """On the loop: the result becomes the document's analysis, or the base of the next."""
    editing = doc.editing
    if editing.workspace is not job.workspace:
        return  # the workspace changed: the editing forgot its analyses (set_workspace)
    if editing.text is job.text:
        if found.layout is not None:
            editing.base, editing.window = found, None
        elif found.source.root is not None or editing.base is None:
            editing.base, editing.window = None, None
        editing.current = found
        doc.analysis_seconds = seconds
        if found.source.root is not None:
            doc.last_parsed = found
    elif found.layout is not None:
        # Edited after it started: the next analysis re-reads what changed since.
        if job.edits_known and job.since is not None:
            editing.base, editing.window = found, job.since
        else:
            editing.base, editing.window = None, None
