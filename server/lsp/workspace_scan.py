"""The problems of every spec file of the workspace, open or not (workspace/diagnostic).

The spec files are found as workspace symbols finds them (analysis/workspace_files.py);
an unopened one is read from disk and analysed like an open one (the store's `load`: the
same workspace, checkspec.yaml and editor settings, so its problems are the ones it would
show when opened), and its report kept with the file's stamp (size and mtime). A report is
made again only when the file's stamp changed, a watched-file event named it, or a
checkspec.yaml or the editor settings changed (every report is then stale).

The scan is bounded background work that never holds up a request: the files are read
and analysed in one child process (`analyser`, started at the first scan, a spawned
interpreter that imports only the analysis), one file a task, so this process only
stats files and turns problems into diagnostics. (Analysed on the event loop, a request
waited for a whole file's analysis several times over: pygls reads a message in a few
steps through a thread, each waiting for the loop.) One scan runs at a time; whoever
asks meanwhile waits for it. Nothing here runs user code or touches the network (the
analysis never does). An unopened file is analysed with checkspec.yaml as saved.

Each report's result id is a digest of its diagnostics as sent: a file whose problems did
not change keeps its id, and a pull that names it is answered `unchanged`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import multiprocessing
import os
from collections.abc import Iterable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from checkspec.engine.spec.kinds import FileKind, kind_from_name

from . import file_encoding
from .background import current_analysis, in_background
from .convert import PositionCodec, to_diagnostic
from .diagnostics import diagnostics_of, pulls, refresh_soon
from .files import uri_of
from .guard import report

if TYPE_CHECKING:
    from .documents import DocumentStore, OpenDocument
    from .host import Host

OPEN_FILES = "openFiles"
WORKSPACE = "workspace"
WATCHER_ID = "checkspec-spec-watcher"


@dataclass(frozen=True)
class FileReport:
    uri: str
    result_id: str
    diagnostics: list[types.Diagnostic]
    version: int | None = None  # an open document's version (None: read from disk)


@dataclass
class _Known:
    stamp: tuple[int, int]  # (size, mtime_ns) when read
    generation: int  # the workspace generation it was made in
    report: FileReport


@dataclass
class WorkspaceScan:
    """The reports of the unopened spec files, kept between scans."""

    known: dict[Path, _Known] = field(default_factory=dict)
    generation: int = 0  # bumped when every report is stale (settings, checkspec.yaml)
    files_read: int = 0  # analyses made from disk (tests and the bench read it)
    running: asyncio.Task[list[FileReport]] | None = None
    changes: int = 0  # bumped by `stale`: a scan started before a change is not reused
    running_from: int = 0  # `changes` when the running scan started

    def stale(self, paths: Iterable[Path] | None = None) -> None:
        """These files (None: every file) must be read again at the next scan."""
        self.changes += 1
        if paths is None:
            self.generation += 1
            return
        for path in paths:
            self.known.pop(path.resolve(), None)


_SCANS: dict[int, WorkspaceScan] = {}


def scan_of(ls: Host) -> WorkspaceScan:
    return _SCANS.setdefault(id(ls), WorkspaceScan())


def scope(ls: Host) -> str:
    """`checkspec.diagnostics.scope` as the editor gives it, else `diagnostics_scope:` of a
    workspace root's checkspec.yaml (workspace if any says so), else the default."""
    from checkspec.engine.catalog import SETTINGS_BY_NAME

    given = ls.store.editor.overrides().get("diagnostics_scope")
    if given:
        return str(given)
    for root in ls.workspace_roots():
        workspace = ls.store.workspaces.workspace_for(root)
        if workspace.root is not None and workspace.config.diagnostics_scope == WORKSPACE:
            return WORKSPACE
    return str(SETTINGS_BY_NAME["diagnostics_scope"].default)


def result_id(ls: Host, found: list[types.Diagnostic]) -> str:
    """The same diagnostics, the same id: a digest of what goes over the wire."""
    wire = json.dumps(ls.protocol.as_json(found), sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(wire.encode(), digest_size=10).hexdigest()


def open_report(ls: Host, doc: OpenDocument) -> FileReport:
    found = diagnostics_of(ls, doc)
    return FileReport(doc.uri, result_id(ls, found), found, doc.version)


async def reports(ls: Host) -> list[FileReport]:
    """Every spec file's report: the open ones', then the unopened ones' (scope workspace)."""
    opened = [doc for doc in ls.store.all() if _is_spec(doc.path)]
    for doc in opened:
        if in_background(doc):
            await current_analysis(doc)  # big: made off the loop (background.py)
    found = [open_report(ls, doc) for doc in opened if ls.store.get(doc.uri) is doc]
    if scope(ls) != WORKSPACE:
        return found
    scan = scan_of(ls)
    while True:
        if scan.running is None or scan.running.done():
            scan.running_from = scan.changes
            scan.running = asyncio.ensure_future(_scan(ls, scan))
        running, started_at = scan.running, scan.running_from
        made = await asyncio.shield(running)
        if started_at == scan.changes:  # nothing changed since it started: current
            return found + made
        if scan.running is running:  # stale: scan again (only what changed is re-read)
            scan.running = None


def _is_spec(path: str) -> bool:
    kind = kind_from_name(path)
    return kind is not None and kind is not FileKind.CONFIG


async def _scan(ls: Host, scan: WorkspaceScan) -> list[FileReport]:
    # Deferred: the analysis loads with the first request (start-up time).
    from ..analysis.workspace_files import spec_files

    opened = {Path(doc.path).resolve() for doc in ls.store.all()}
    overrides = ls.store.editor.overrides()
    seen: set[Path] = set()
    out: list[FileReport] = []
    pending: list[tuple[Path, tuple[int, int], int, asyncio.Future[Any]]] = []
    loop = asyncio.get_running_loop()
    for root in ls.workspace_roots():
        for path in spec_files(root):
            key = path.resolve()
            if key in seen or key in opened:
                continue
            seen.add(key)
            known = scan.known.get(key)
            try:
                stat = os.stat(key)
            except OSError:
                scan.known.pop(key, None)
                continue
            stamp = (stat.st_size, stat.st_mtime_ns)
            if known is None or known.stamp != stamp or known.generation != scan.generation:
                task = loop.run_in_executor(
                    analyser(), analyse_file, str(path), overrides, ls.encoding
                )
                pending.append((key, stamp, scan.generation, task))
            else:
                out.append(known.report)
    for key, stamp, generation, task in pending:
        try:
            found = await task
        except Exception as exc:  # the child died or a bug: the others still count
            report(ls, f"analysing {key}", exc)
            continue
        scan.files_read += 1
        if found is None:  # over the size limit, unreadable or gone
            scan.known.pop(key, None)
            continue
        made = FileReport(uri_of(key), result_id(ls, found), found)
        scan.known[key] = _Known(stamp, generation, made)
        out.append(made)
    for gone in set(scan.known) - seen:
        del scan.known[gone]
    return out


# The analysing process ------------------------------------------------------------------

_ANALYSER: list[Executor] = []


def analyser() -> Executor:
    """The one child process unopened files are analysed in (spawned: no fork of a server
    with threads), started when first needed; it ends with the server."""
    if not _ANALYSER:
        context = multiprocessing.get_context("spawn")
        _ANALYSER.append(ProcessPoolExecutor(max_workers=1, mp_context=context))
    return _ANALYSER[0]


def close_analyser() -> None:
    while _ANALYSER:
        _ANALYSER.pop().shutdown(wait=False, cancel_futures=True)


_CHILD_STORE: list[DocumentStore] = []


def analyse_file(
    path: str, overrides: dict[str, Any], encoding: str
) -> list[types.Diagnostic] | None:
    """In the analysing process: a file's problems as an open document of it would have
    them (the store's workspace and settings), as the client's diagnostics (converted
    here: the server's loop neither receives the text, 45 MB for a big dataset, nor
    indexes its lines); None: not to be listed."""
    from .documents import DocumentStore
    from .settings import EditorSettings

    if not _CHILD_STORE:
        store = DocumentStore()
        store.keep_runnable = False
        _CHILD_STORE.append(store)
    store = _CHILD_STORE[0]
    store.editor = EditorSettings(overrides)
    try:
        doc = store.load(uri_of(Path(path)))
        if doc is None:
            return None
        document = store.analysis(doc)
    except UnicodeDecodeError:  # as the CLI: a problem at the file, not a silence
        try:
            data = Path(path).read_bytes()
        except OSError:
            return None
        problem = file_encoding.problem_of(data)
        if problem is None:
            return []
        return [to_diagnostic(problem, PositionCodec(data.decode("utf-8", "replace"), encoding))]
    except OSError:
        return None
    if document.kind is None:
        return []
    codec = PositionCodec(doc.text, encoding, doc.lines)
    return [to_diagnostic(problem, codec) for problem in document.all_problems]


# What changes a report --------------------------------------------------------------------


def files_changed(ls: Host, changes: Iterable[types.FileEvent]) -> None:
    """Spec files created, changed or deleted on disk (workspace/didChangeWatchedFiles)."""
    paths = [Path(p) for c in changes if (p := to_fs_path(c.uri)) and _is_spec(p)]
    if paths:
        scan_of(ls).stale(paths)
        refresh_soon(ls)


def everything_changed(ls: Host) -> None:
    """The editor settings or a checkspec.yaml changed: every report may differ."""
    scan_of(ls).stale()
    refresh_soon(ls)


async def watch_spec_files(ls: Host) -> None:
    """Ask the client to tell us about spec files changed on disk (dynamic registration)."""
    if not pulls(ls):
        return
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace else None
    if not (watched and watched.dynamic_registration):
        return
    from checkspec.engine.catalog import FILE_KINDS

    globs = [f"**/{p}" for k in FILE_KINDS if k.kind is not FileKind.CONFIG for p in k.patterns]
    options: Any = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=glob) for glob in globs]
    )
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id=WATCHER_ID,
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=options,
                    )
                ]
            )
        )
    except Exception as exc:  # the client refused: a pull still sees changed stamps
        ls.log(f"checkspec: not watching spec files ({exc})", types.MessageType.Warning)
