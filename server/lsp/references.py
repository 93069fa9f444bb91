"""textDocument/references: every use of a custom check in the workspace, open or not."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from .files import location, reader
from .guard import guarded

if TYPE_CHECKING:
    from .server import CheckspecServer


def register(server: CheckspecServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @guarded(list)
    def references(ls: CheckspecServer, params: types.ReferenceParams) -> list[types.Location]:
        from ..analysis import custom_checks
        from ..analysis.references import references as references_of

        doc = ls.store.get(params.text_document.uri)
        if doc is None or doc.too_large:
            return []
        position = ls.codec(doc).from_lsp(params.position)
        found = custom_checks.identifier_at(ls.store.analysis(doc), position)
        if found is None:
            return []
        read = reader(ls)
        places = references_of(
            found[0],
            doc.workspace,
            read,
            include_definition=params.context.include_declaration,
            also=(Path(doc.path),) if doc.folder is not None else (),
        )
        return [location(ls, place.path, place.range, read) for place in places]
