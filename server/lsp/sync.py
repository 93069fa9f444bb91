"""Document sync: didOpen, didChange (incremental, or whole texts diffed), didSave, didClose.

A save runs the file or the scenario last edited when `checkspec.runOnSave` says so (the
server does it for every editor).

The store keeps each open document's text and analysis (documents.py); diagnostics are
published on open and after a pause in typing, and a changed checkspec.yaml refreshes the
documents of its workspace (configuration.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from checkspec.engine.catalog import KIND_SPECS, kind_from_name

from . import diagnostics
from .configuration import config_changed
from .feature import handler

if TYPE_CHECKING:
    from .documents import OpenDocument
    from .host import Host


@handler(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: Host, params: types.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    doc = ls.store.open(item.uri, item.text, item.version)
    diagnostics.publish(ls, doc.uri)
    if doc.is_config:
        config_changed(ls, Path(doc.path))


@handler(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: Host, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    version = params.text_document.version
    doc = ls.store.update(uri, params.content_changes, version, ls.encoding)
    if doc is None:
        return
    if not doc.pending:  # a big document's edits wait for the worker (background.py)
        ls.protocol.share_text(uri, doc.text, version)
    diagnostics.publish_soon(ls, uri)
    if doc.is_config:
        config_changed(ls, Path(doc.path))


@handler(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: Host, params: types.DidSaveTextDocumentParams) -> None:
    doc = ls.store.get(params.text_document.uri)
    if doc is not None and doc.is_config:
        config_changed(ls, Path(doc.path))
    if doc is not None:
        _encoding_on_save(ls, doc)
        run_on_save(ls, doc)


def _encoding_on_save(ls: Host, doc: OpenDocument) -> None:
    """Saved in (or out of) an encoding the CLI refuses: show it now (file_encoding.py)."""
    from . import file_encoding

    limit = doc.workspace.config.size_limit(doc.path)[0]
    if file_encoding.changed_on_disk(doc.path, limit):
        diagnostics.publish(ls, doc.uri)


def run_on_save(ls: Host, doc: OpenDocument) -> None:
    """`checkspec.runOnSave`: run the saved file, or the scenario of its last edit."""
    mode = ls.store.editor.run_on_save
    spec = KIND_SPECS.get(kind_from_name(doc.path))  # type: ignore[arg-type]
    if mode == "off" or spec is None or not spec.runnable:
        return
    # Deferred: a run loads the executor (start-up time).
    from .commands import run_file

    if mode == "file":
        ls.spawn(run_file(ls, doc.uri, None))
        return
    index = scenario_at(ls, doc)
    if index is not None:
        ls.spawn(run_file(ls, doc.uri, [index]))


def scenario_at(ls: Host, doc: OpenDocument) -> int | None:
    """The index of the scenario holding the document's last edit, if any."""
    offset = doc.editing.last_edit
    if offset is None:
        return None
    line = doc.lines.position(min(offset, len(doc.text))).line
    for entry in ls.store.analysis(doc).scenarios:
        rng = entry.node.range
        if rng.start.line <= line <= rng.end.line:
            return entry.index
    return None


@handler(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: Host, params: types.DidCloseTextDocumentParams) -> None:
    doc = ls.store.close(params.text_document.uri)
    diagnostics.clear(ls, params.text_document.uri)
    if doc is not None and doc.is_config:
        config_changed(ls, Path(doc.path))  # the file on disk applies again
