"""Open documents: their text, their analysis and their run findings.

Each open document is an `Editing` (engine/spec/incremental.py): the editor's changes
(incremental sync: a range and its new text) are applied to its text and line index as
they arrive, and its analysis is made when something needs it after a change
(diagnostics, a request), never once per request, by re-reading only the scenarios the
changes touched. Its workspace is the nearest checkspec.yaml, read from the editor when
that file is open (unsaved custom checks count), with the editor settings applied.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from checkspec.engine.spec.kinds import is_config_name
from checkspec.engine.spec.lines import LineIndex
from checkspec.engine.spec.problems import Problem

from .settings import EditorSettings
from .text_changes import apply_changes

if TYPE_CHECKING:  # the analysis loads with the first document (initialize needs none)
    from checkspec.engine.runs.project import Workspaces
    from checkspec.engine.settings import Resolved
    from checkspec.engine.spec.document import Document
    from checkspec.engine.spec.incremental import Editing
    from checkspec.engine.spec.workspace import Workspace

    from .background import Job


class OpenDocument:
    def __init__(
        self, uri: str, path: str, text: str, version: int | None, *, keep: bool = True
    ) -> None:
        # Deferred: the engine loads with the first document (start-up time).
        from checkspec.engine.settings import Settings
        from checkspec.engine.spec.incremental import Editing

        self.uri = uri
        self.path = path  # the file's path, or the URI when it is not a file
        self.version = version
        # Its text and analysis; `editing` settles it first (background.py: a big
        # document's edits are queued in `pending` and applied in the worker thread).
        # `keep`: whether its analyses make each scenario's runnable form (the store's).
        self.own_editing = Editing(text, path, keep=keep)
        self.pending: list[tuple[Sequence[types.TextDocumentContentChangeEvent], str]] = []
        self.settings = Settings()
        self.resolved: Resolved | None = None  # the settings with their origins
        self.last_parsed: Document | None = None  # the latest analysis whose text parsed
        self.run_findings: dict[int, list[Problem]] = {}  # by scenario index
        # How long the last analysis took, and the last one after a change (diagnostics
        # wait about as long after the next change: diagnostics.publish_soon).
        self.analysis_seconds = 0.0
        self.change_seconds = 0.02
        self._size_check: tuple[str, bool] | None = None
        self.job: Job | None = None  # its analysis in the worker thread (background.py)

    @property
    def editing(self) -> Editing:
        """Its text and analysis, every edit applied (at once on the loop, when the worker
        thread had them: see background.py; the server's handlers await them first)."""
        if self.pending or self.job is not None:
            from .background import settle

            settle(self)
        return self.own_editing

    @property
    def text(self) -> str:
        return self.editing.text

    @property
    def lines(self) -> LineIndex:
        """The line index of `text` (kept up to date edit by edit)."""
        return self.editing.lines

    @property
    def analysis(self) -> Document | None:
        """The analysis of `text`, once made."""
        return self.editing.current

    @property
    def workspace(self) -> Workspace:
        return self.own_editing.workspace  # edits leave it as it is: no need to settle

    @workspace.setter
    def workspace(self, workspace: Workspace) -> None:
        self.editing.set_workspace(workspace)

    @property
    def too_large(self) -> bool:
        """Over the size limit: requests answer at once, without parsing or scanning it."""
        check = self._size_check
        if check is None or check[0] is not self.text:
            # Deferred: the engine loads with the first document (start-up time).
            from checkspec.engine.spec.source import too_large

            limit, setting = self.workspace.config.size_limit(self.path)
            # More characters than bytes allowed is over for sure: no need to encode 50 MB.
            over = len(self.text) > limit or too_large(self.text, limit, setting) is not None
            check = self._size_check = (self.text, over)
        return check[1]

    @property
    def is_config(self) -> bool:
        return is_config_name(self.path)

    @property
    def folder(self) -> Path | None:
        path = Path(self.path)
        return path.parent if path.is_absolute() else None


# What opening the first spec file imports (see DocumentStore.warm_up).
_ANALYSIS_MODULES = (
    "checkspec.engine.settings",
    "checkspec.engine.spec.workspace",
    "checkspec.engine.spec.incremental",
)


class DocumentStore:
    def __init__(self) -> None:
        self._docs: dict[str, OpenDocument] = {}
        self.editor = EditorSettings()
        self._open_configs: dict[tuple[Path, str], Workspace] = {}
        # Whether analyses keep each scenario's runnable form (the server rebuilds them for
        # the rare run instead: they were a third of a big file's memory): a parameter of
        # each document's analysis (engine/spec/document.py `analyze(keep=...)`).
        self.keep_runnable = True
        self._workspaces: Workspaces | None = None

    def warm_up(self) -> None:
        """Load what the first document's analysis needs (the reader, the analysis, the
        settings, the deterministic checks), when the server is idle after initialize:
        otherwise the first open pays for these imports (~0.2 s of CPU) on top of its
        analysis."""
        for module in _ANALYSIS_MODULES:
            importlib.import_module(module)
        from checkspec.engine.core.check import BUILT_IN_CHECKS

        # The deterministic checks, a module each (the judges load when first used).
        for module in dict.fromkeys(BUILT_IN_CHECKS.values()):
            if module.startswith("checkspec.engine.checks."):
                importlib.import_module(module)

    @property
    def workspaces(self) -> Workspaces:
        """The server's index of workspaces (engine/runs/project.py): each checkspec.yaml
        read once per change of it; made with the first document (start-up time)."""
        if self._workspaces is None:
            from checkspec.engine.runs.project import Workspaces

            self._workspaces = Workspaces(remember_folders=False)
        return self._workspaces

    def _document(self, uri: str, path: str, text: str, version: int | None) -> OpenDocument:
        return OpenDocument(uri, path, text, version, keep=self.keep_runnable)

    # Lifecycle ---------------------------------------------------------------------------

    def open(self, uri: str, text: str, version: int | None) -> OpenDocument:
        doc = self._document(uri, to_fs_path(uri) or uri, text, version)
        self._docs[uri] = doc
        self._attach_workspace(doc)
        return doc

    def update(
        self,
        uri: str,
        changes: Sequence[types.TextDocumentContentChangeEvent],
        version: int | None,
        encoding: str,
    ) -> OpenDocument | None:
        """Apply the editor's changes, in order (a range and its text, or the whole text)."""
        doc = self._docs.get(uri)
        if doc is None:
            return None
        from .background import cancel, deferred

        if deferred(doc):  # big: queued, applied in the worker thread (background.py)
            doc.pending.append((changes, encoding))
            cancel(doc)  # the running analysis is stale
        else:
            apply_changes(doc.editing, changes, encoding)
        doc.version = version
        doc.run_findings.clear()  # their lines may have moved
        return doc

    def close(self, uri: str) -> OpenDocument | None:
        doc = self._docs.pop(uri, None)
        if doc is not None:
            from .background import cancel

            cancel(doc)
        return doc

    def get(self, uri: str) -> OpenDocument | None:
        return self._docs.get(uri)

    def all(self) -> list[OpenDocument]:
        return list(self._docs.values())

    def load(self, uri: str) -> OpenDocument | None:
        """A file that is not open (a run started from a file explorer), read from disk."""
        path = to_fs_path(uri)
        if path is None or not Path(path).is_file():
            return None
        doc = self._document(uri, path, "", None)
        self._attach_workspace(doc)
        if Path(path).stat().st_size > doc.workspace.config.size_limit(path)[0]:
            return None
        doc.editing.set_text(Path(path).read_text(encoding="utf-8"))
        return doc

    # Analysis ----------------------------------------------------------------------------

    def analysis(self, doc: OpenDocument) -> Document:
        """The analysis of the document's text, made here (on the loop, for the server):
        handlers of big documents await `background.analysed` first, so this is for the
        rare callers that cannot (a run; `doc.editing` settles the document first)."""
        found = doc.editing.current
        if found is None:
            started = time.perf_counter()
            found = doc.editing.analysis()
            doc.analysis_seconds = time.perf_counter() - started
            if found.source.root is not None:
                doc.last_parsed = found
        return found

    # Workspaces and settings -------------------------------------------------------------

    def set_editor_settings(self, editor: EditorSettings) -> list[OpenDocument]:
        self.editor = editor
        return self.refresh(self.all())

    def refresh(self, docs: list[OpenDocument]) -> list[OpenDocument]:
        """Re-read the workspace of these documents; they are re-analysed when next needed."""
        for doc in docs:
            self._attach_workspace(doc)
        return docs

    def using_config(self, config: Path) -> list[OpenDocument]:
        """The open documents whose workspace is this checkspec.yaml (or would become it)."""
        config = config.resolve()
        found = []
        for doc in self._docs.values():
            current = doc.workspace.config_path
            folder = doc.folder
            if current is not None and current.resolve() == config:
                found.append(doc)
            elif folder is not None and folder.resolve().is_relative_to(config.parent):
                found.append(doc)  # a new checkspec.yaml above it may now apply
        return found

    def _attach_workspace(self, doc: OpenDocument) -> None:
        # Deferred: the engine loads with the first document (start-up time).
        from checkspec.engine.settings import resolve

        base = self._base_workspace(doc)
        resolved = resolve(base, editor=self.editor.overrides())
        settings = resolved.settings
        # Analysis reads the default target and the size limit from the config: give it the
        # resolved values, so editor settings and environment count there too.
        config = base.config.model_copy(
            update={
                "target": settings.target,
                "max_file_size": settings.max_file_size,
                "max_dataset_file_size": settings.max_dataset_file_size,
            }
        )
        doc.workspace = replace(base, config=config)
        doc.settings = settings
        doc.resolved = resolved  # with each value's origin (hover on checkspec.yaml)

    def _base_workspace(self, doc: OpenDocument) -> Workspace:
        # Deferred: the engine loads with the first document (start-up time).
        from checkspec.engine.spec.workspace import Workspace

        path = Path(doc.path)
        if not path.is_absolute():
            return Workspace()
        try:
            config = self.workspaces.config_for(path)
            if config is None:
                return Workspace()
            open_config = self._open_config(config)
            if open_config is not None:
                return open_config
            return self.workspaces.read(config)
        except (OSError, UnicodeDecodeError):  # unreadable checkspec.yaml: no workspace
            return Workspace()

    def _open_config(self, config: Path) -> Workspace | None:
        """The workspace from an open (maybe unsaved) checkspec.yaml, parsed once per text."""
        # Deferred: the engine loads with the first document (start-up time).
        from checkspec.engine.spec.workspace import workspace_from_text

        resolved = config.resolve()
        for doc in self._docs.values():
            if doc.is_config and Path(doc.path).resolve() == resolved:
                key = (resolved, doc.text)
                if key not in self._open_configs:
                    if len(self._open_configs) > 16:
                        self._open_configs.clear()
                    self._open_configs[key] = workspace_from_text(doc.text, config)
                return self._open_configs[key]
        return None
