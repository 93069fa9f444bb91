"""Document sync: didOpen, didChange (incremental), didSave, didClose.

The store keeps each open document's text and analysis (documents.py); diagnostics are
published on open and after a pause in typing, and a changed checkspec.yaml refreshes the
documents of its workspace (configuration.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from . import diagnostics
from .configuration import config_changed
from .feature import handler

if TYPE_CHECKING:
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
    ls.protocol.share_text(uri, doc.text, version)
    diagnostics.publish_soon(ls, uri)
    if doc.is_config:
        config_changed(ls, Path(doc.path))


@handler(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: Host, params: types.DidSaveTextDocumentParams) -> None:
    doc = ls.store.get(params.text_document.uri)
    if doc is not None and doc.is_config:
        config_changed(ls, Path(doc.path))


@handler(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: Host, params: types.DidCloseTextDocumentParams) -> None:
    doc = ls.store.close(params.text_document.uri)
    diagnostics.clear(ls, params.text_document.uri)
    if doc is not None and doc.is_config:
        config_changed(ls, Path(doc.path))  # the file on disk applies again
