"""Open documents: their text, their analysis (made once per text) and their run findings.

A document is analysed when something needs it after a change (diagnostics, a request),
never once per request. Its workspace is the nearest checkspec.yaml, read from the editor
when that file is open (unsaved custom checks count), with the editor settings applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from pygls.uris import to_fs_path

from checkspec.engine.settings import Settings, resolve_settings
from checkspec.engine.spec.document import Document, analyze
from checkspec.engine.spec.kinds import is_config_name
from checkspec.engine.spec.problems import Problem
from checkspec.engine.spec.source import too_large
from checkspec.engine.spec.workspace import (
    Workspace,
    find_config,
    load_workspace,
    workspace_from_text,
)

from .settings import EditorSettings

# Above this size a completion may use the analysis of the text before the last keystroke
# (parsing a very large file on every keystroke would make typing lag).
_STALE_OK_CHARS = 200_000


@dataclass
class OpenDocument:
    uri: str
    path: str  # the file's path, or the URI when it is not a file
    text: str
    version: int | None
    workspace: Workspace = field(default_factory=Workspace)
    settings: Settings = field(default_factory=Settings)
    analysis: Document | None = None  # of `text`; None until needed
    previous: Document | None = None  # of the text before the last change
    last_parsed: Document | None = None  # the latest analysis whose text parsed
    run_findings: dict[int, list[Problem]] = field(default_factory=dict)  # by scenario index
    _size_check: tuple[str, bool] | None = field(default=None, repr=False)

    @property
    def too_large(self) -> bool:
        """Over the size limit: requests answer at once, without parsing or scanning it."""
        check = self._size_check
        if check is None or check[0] is not self.text:
            limit = self.workspace.config.max_file_size
            # More characters than bytes allowed is over for sure: no need to encode 50 MB.
            over = len(self.text) > limit or too_large(self.text, limit) is not None
            check = self._size_check = (self.text, over)
        return check[1]

    @property
    def is_config(self) -> bool:
        return is_config_name(self.path)

    @property
    def folder(self) -> Path | None:
        path = Path(self.path)
        return path.parent if path.is_absolute() else None


class DocumentStore:
    def __init__(self) -> None:
        self._docs: dict[str, OpenDocument] = {}
        self.editor = EditorSettings()
        self._open_configs: dict[tuple[Path, str], Workspace] = {}

    # Lifecycle ---------------------------------------------------------------------------

    def open(self, uri: str, text: str, version: int | None) -> OpenDocument:
        doc = OpenDocument(uri, to_fs_path(uri) or uri, text, version)
        self._docs[uri] = doc
        self._attach_workspace(doc)
        return doc

    def update(self, uri: str, text: str, version: int | None) -> OpenDocument | None:
        doc = self._docs.get(uri)
        if doc is None:
            return None
        if doc.analysis is not None:
            doc.previous = doc.analysis
        doc.text, doc.version, doc.analysis = text, version, None
        doc.run_findings.clear()  # their lines may have moved
        return doc

    def close(self, uri: str) -> OpenDocument | None:
        return self._docs.pop(uri, None)

    def get(self, uri: str) -> OpenDocument | None:
        return self._docs.get(uri)

    def all(self) -> list[OpenDocument]:
        return list(self._docs.values())

    def load(self, uri: str) -> OpenDocument | None:
        """A file that is not open (a run started from a file explorer), read from disk."""
        path = to_fs_path(uri)
        if path is None or not Path(path).is_file():
            return None
        doc = OpenDocument(uri, path, "", None)
        self._attach_workspace(doc)
        if Path(path).stat().st_size > doc.workspace.config.max_file_size:
            return None
        doc.text = Path(path).read_text(encoding="utf-8")
        return doc

    # Analysis ----------------------------------------------------------------------------

    def analysis(self, doc: OpenDocument) -> Document:
        if doc.analysis is None:
            doc.analysis = analyze(doc.text, doc.path, doc.workspace)
            if doc.analysis.source.root is not None:
                doc.last_parsed = doc.analysis
        return doc.analysis

    def recent_analysis(self, doc: OpenDocument) -> Document:
        """The current analysis, or for a very large file the one before the last keystroke."""
        if doc.analysis is None and doc.previous is not None and len(doc.text) > _STALE_OK_CHARS:
            return doc.previous
        return self.analysis(doc)

    # Workspaces and settings -------------------------------------------------------------

    def set_editor_settings(self, editor: EditorSettings) -> list[OpenDocument]:
        self.editor = editor
        return self.refresh(self.all())

    def refresh(self, docs: list[OpenDocument]) -> list[OpenDocument]:
        """Re-read the workspace of these documents; they are re-analysed when next needed."""
        for doc in docs:
            self._attach_workspace(doc)
            doc.analysis = None
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
        base = self._base_workspace(doc)
        settings = resolve_settings(base, **self.editor.overrides())
        # Analysis reads the default target and the size limit from the config: give it the
        # resolved values, so editor settings and environment count there too.
        config = base.config.model_copy(
            update={"target": settings.target, "max_file_size": settings.max_file_size}
        )
        doc.workspace = replace(base, config=config)
        doc.settings = settings

    def _base_workspace(self, doc: OpenDocument) -> Workspace:
        path = Path(doc.path)
        if not path.is_absolute():
            return Workspace()
        try:
            config = find_config(path.parent)
            if config is None:
                return Workspace()
            open_config = self._open_config(config)
            if open_config is not None:
                return open_config
            return load_workspace(path)
        except (OSError, UnicodeDecodeError):  # unreadable checkspec.yaml: no workspace
            return Workspace()

    def _open_config(self, config: Path) -> Workspace | None:
        """The workspace from an open (maybe unsaved) checkspec.yaml, parsed once per text."""
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
