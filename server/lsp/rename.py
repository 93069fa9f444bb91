"""textDocument/prepareRename and rename: custom checks, renamed in every file of the
workspace (checkspec.yaml and files not open included). Built-in kinds are refused."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from .convert import PositionCodec
from .files import reader, uri_of
from .guard import guarded

if TYPE_CHECKING:
    from .server import CheckspecServer


def register(server: CheckspecServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @guarded(lambda: None)
    def prepare_rename(
        ls: CheckspecServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        from ..analysis.references import prepare_rename as prepare_at

        doc = ls.store.get(params.text_document.uri)
        if doc is None or doc.too_large:
            return None
        codec = ls.codec(doc)
        found = prepare_at(ls.store.analysis(doc), codec.from_lsp(params.position))
        if found is None:
            return None  # a built-in kind, or not a check at all: nothing to rename
        identifier, rng = found
        return types.PrepareRenamePlaceholder(range=codec.range(rng), placeholder=identifier)

    @server.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
    @guarded(lambda: None)
    def rename(ls: CheckspecServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        from ..analysis.references import prepare_rename as prepare_at
        from ..analysis.references import rename_edits

        doc = ls.store.get(params.text_document.uri)
        if doc is None or doc.too_large:
            return None
        found = prepare_at(ls.store.analysis(doc), ls.codec(doc).from_lsp(params.position))
        if found is None:
            return None
        read = reader(ls)
        also = (Path(doc.path),) if doc.folder is not None else ()
        try:
            edits = rename_edits(found[0], params.new_name, doc.workspace, read, also=also)
        except ValueError as exc:
            ls.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Error, message=f"checkspec: {exc}")
            )
            return None
        changes: dict[str, list[types.TextEdit]] = {}
        for path, file_edits in edits.items():
            codec = PositionCodec(read(path) or "", ls.encoding)
            changes[uri_of(path)] = [
                types.TextEdit(range=codec.range(e.range), new_text=e.new_text) for e in file_edits
            ]
        return types.WorkspaceEdit(changes=changes)
