"""The checkspec language server: document state, settings, and one module per feature.

This module owns the open documents (text in, analysis out, on change only) and the
editor settings; each feature module (diagnostics, completion, hover, code actions,
symbols, code lenses, commands) registers its own handlers and only translates between
LSP and the pure analysis in `checkspec.server.analysis`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from checkspec.engine.core.gcpause import freeze_bulk
from checkspec.engine.spec.kinds import CONFIG_NAMES, is_config_name

from . import (
    code_actions,
    code_lens,
    commands,
    completion,
    definition,
    diagnostics,
    generate,
    hover,
    inlay_hints,
    links,
    references,
    rename,
    symbols,
)
from .convert import UTF16, PositionCodec
from .documents import DocumentStore, OpenDocument
from .guard import guarded
from .last_runs import LastRuns
from .protocol import CheckspecProtocol
from .runs import Runs
from .settings import SECTION, EditorSettings

NAME = "checkspec"
# Longest pause in typing diagnostics wait for (they wait as long as an analysis takes).
DEBOUNCE_SECONDS = 0.15


def _version() -> str:
    from checkspec.engine.version import VERSION

    return VERSION


class CheckspecServer(LanguageServer):
    protocol: CheckspecProtocol  # what `protocol_cls` below makes it

    def __init__(self) -> None:
        super().__init__(
            NAME,
            _version(),
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

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self.background.add(task)
        task.add_done_callback(self.background.discard)


def create_server() -> CheckspecServer:
    freeze_bulk()  # analyses live as long as their document: keep the collector off them
    server = CheckspecServer()
    server.store.keep_scenarios = False  # runnable forms are rebuilt for the rare run
    _register_lifecycle(server)
    features = (diagnostics, completion, hover, code_actions, symbols, code_lens, commands)
    for feature in (*features, definition, links, references, rename, inlay_hints, generate):
        feature.register(server)
    return server


def _register_lifecycle(server: CheckspecServer) -> None:
    @server.feature(types.INITIALIZE)
    @guarded()
    def initialize(ls: CheckspecServer, params: types.InitializeParams) -> None:
        ls.store.editor = EditorSettings.from_client(params.initialization_options)
        ls.given_options = params.initialization_options is not None

    @server.feature(types.INITIALIZED)
    @guarded()
    def initialized(ls: CheckspecServer, params: types.InitializedParams) -> None:
        # While the client sends the first document (a big one takes a while to encode
        # and send), load what its analysis needs.
        asyncio.get_running_loop().call_soon(_warm_up, ls)
        ls.spawn(_watch_configs(ls))
        if not ls.given_options and _can_pull_config(ls):
            ls.spawn(_apply_settings(ls, None))

    @server.feature(types.SHUTDOWN)
    @guarded()
    async def shutdown(ls: CheckspecServer, params: Any) -> None:
        await ls.runs.aclose()  # no worker process outlives the server

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @guarded()
    async def did_change_configuration(
        ls: CheckspecServer, params: types.DidChangeConfigurationParams
    ) -> None:
        await _apply_settings(ls, params.settings)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @guarded()
    def did_open(ls: CheckspecServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        doc = ls.store.open(item.uri, item.text, item.version)
        diagnostics.publish(ls, doc.uri)
        if doc.is_config:
            _config_changed(ls, Path(doc.path))

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @guarded()
    def did_change(ls: CheckspecServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        version = params.text_document.version
        doc = ls.store.update(uri, params.content_changes, version, ls.encoding)
        if doc is None:
            return
        ls.protocol.share_text(uri, doc.text, version)
        diagnostics.publish_soon(ls, uri)
        if doc.is_config:
            _config_changed(ls, Path(doc.path))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    @guarded()
    def did_save(ls: CheckspecServer, params: types.DidSaveTextDocumentParams) -> None:
        doc = ls.store.get(params.text_document.uri)
        if doc is not None and doc.is_config:
            _config_changed(ls, Path(doc.path))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @guarded()
    def did_close(ls: CheckspecServer, params: types.DidCloseTextDocumentParams) -> None:
        doc = ls.store.close(params.text_document.uri)
        diagnostics.clear(ls, params.text_document.uri)
        if doc is not None and doc.is_config:
            _config_changed(ls, Path(doc.path))  # the file on disk applies again

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @guarded()
    def did_change_watched_files(
        ls: CheckspecServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        for change in params.changes:
            path = to_fs_path(change.uri)
            if path is not None and is_config_name(path):
                _config_changed(ls, Path(path))


def _warm_up(ls: CheckspecServer) -> None:
    try:
        ls.store.warm_up()
    except Exception as exc:  # the first document then loads them (and says why)
        ls.log(f"could not load the analysis ahead of the first document: {exc}")


async def _apply_settings(ls: CheckspecServer, settings: Any) -> None:
    """Use the `checkspec` settings given, or ask the client for them (pull model)."""
    if not (isinstance(settings, dict) and SECTION in settings) and _can_pull_config(ls):
        try:
            pulled = await ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
            )
        except Exception as exc:  # a client that cannot answer keeps the current settings
            ls.log(f"checkspec: could not read the settings ({exc})", types.MessageType.Warning)
            return
        settings = pulled[0] if pulled else None
    for doc in ls.store.set_editor_settings(EditorSettings.from_client(settings)):
        diagnostics.publish(ls, doc.uri)


def _config_changed(ls: CheckspecServer, config: Path) -> None:
    """checkspec.yaml changed: its custom checks and settings may change every diagnostic."""
    for doc in ls.store.refresh(ls.store.using_config(config)):
        if not doc.is_config:
            diagnostics.publish_soon(ls, doc.uri)


def _can_pull_config(ls: CheckspecServer) -> bool:
    workspace = ls.client_capabilities.workspace
    return bool(workspace and workspace.configuration)


async def _watch_configs(ls: CheckspecServer) -> None:
    """Ask the client to tell us about checkspec.yaml changes made outside the editor."""
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace else None
    if not (watched and watched.dynamic_registration):
        return
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="checkspec-config-watcher",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(
                            watchers=[
                                types.FileSystemWatcher(glob_pattern=f"**/{name}")
                                for name in CONFIG_NAMES
                            ]
                        ),
                    )
                ]
            )
        )
    except Exception as exc:  # the client refused: edits made in the editor still count
        ls.log(f"checkspec: not watching checkspec.yaml files ({exc})", types.MessageType.Warning)
