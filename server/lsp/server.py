"""The checkspec language server: its state, and the registration of every handler.

`CheckspecServer` is the one implementation of `Host` (host.py), what handlers need: the
open documents and their analysis (documents.py), the editor settings, runs and their
last results. Each feature module (one per LSP feature) declares its handlers with the
decorators of feature.py and only translates between LSP and the pure analysis in
`checkspec.server.analysis`; this module imports them and registers them (`HANDLERS`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from checkspec.engine.core.gcpause import freeze_bulk
from checkspec.engine.version import VERSION

from . import (
    calibrate,
    code_actions,
    code_lens,
    commands,
    compare_runs,
    completion,
    configuration,
    curation_actions,
    definition,
    generate,
    hover,
    inlay_hints,
    lifecycle,
    links,
    pull_diagnostics,
    record_outputs,
    references,
    rename,
    symbols,
    sync,
    workspace_symbols,
)
from .convert import UTF16, PositionCodec
from .documents import DocumentStore, OpenDocument
from .feature import Handler
from .last_runs import LastRuns
from .protocol import CheckspecProtocol
from .runs import Runs

NAME = "checkspec"
# Longest pause in typing diagnostics wait for (they wait as long as an analysis takes).
DEBOUNCE_SECONDS = 0.15

# Every handler, in the order registered (the order of the commands in `initialize`'s
# answer, server/initialize_answers.json, follows it).
HANDLERS: tuple[Handler, ...] = (
    lifecycle.initialize,
    lifecycle.initialized,
    lifecycle.shutdown,
    configuration.did_change_configuration,
    sync.did_open,
    sync.did_change,
    sync.did_save,
    sync.did_close,
    configuration.did_change_watched_files,
    completion.completion,
    hover.hover,
    code_actions.code_action,
    symbols.document_symbol,
    code_lens.code_lens,
    commands.run_scenario,
    commands.run_all,
    commands.show_last_run,
    compare_runs.compare_with_previous,
    definition.definition,
    links.document_link,
    references.references,
    rename.prepare_rename,
    rename.rename,
    inlay_hints.inlay_hint,
    generate.generate,
    generate.list_topics,
    generate.list_presets,
    workspace_symbols.workspace_symbol,
    curation_actions.curate,
    curation_actions.list_tags,
    # workspace (pull) diagnostics, issue 28 item 3
    pull_diagnostics.document_diagnostic,
    pull_diagnostics.workspace_diagnostic,
    record_outputs.record_outputs,
    calibrate.calibrate_file,
)


class CheckspecServer(LanguageServer):
    protocol: CheckspecProtocol  # what `protocol_cls` below makes it

    def __init__(self) -> None:
        super().__init__(
            NAME,
            VERSION,
            # Changes come as a range and its new text, applied to our copy (documents.py).
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=CheckspecProtocol,
        )
        self.store = DocumentStore()
        self.debounce = DEBOUNCE_SECONDS
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.background: set[asyncio.Task[Any]] = set()  # keeps fire-and-forget tasks alive
        self.given_options = False  # initializationOptions carried the settings
        self.runs = Runs()  # the worker processes scenarios run in
        self.last_runs = LastRuns()  # each scenario's last result, for showing it in place

    @property
    def encoding(self) -> str:
        """The negotiated position encoding ("utf-32" or "utf-16")."""
        try:
            return self.workspace.position_encoding or UTF16
        except RuntimeError:  # not initialized yet
            return UTF16

    def codec(self, doc: OpenDocument) -> PositionCodec:
        return PositionCodec(doc.text, self.encoding, doc.lines)

    def workspace_roots(self) -> list[Path]:
        """The client's workspace folders (else its root), then the workspaces of the
        open documents."""
        roots: list[Path] = []
        try:
            workspace = self.workspace
        except RuntimeError:  # not initialized yet
            workspace = None
        if workspace is not None:
            for folder in workspace.folders.values():
                path = to_fs_path(folder.uri)
                if path:
                    roots.append(Path(path))
            if not roots and workspace.root_path:
                roots.append(Path(workspace.root_path))
        for doc in self.store.all():
            root = doc.workspace.root
            if root is not None and not any(_within(root, r) for r in roots):
                roots.append(root)
        return roots

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self.background.add(task)
        task.add_done_callback(self.background.discard)


def _within(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def create_server() -> CheckspecServer:
    freeze_bulk()  # analyses live as long as their document: keep the collector off them
    server = CheckspecServer()
    server.store.keep_runnable = False  # runnable forms are rebuilt for the rare run
    for registered in HANDLERS:
        registered.register(server)
    return server
