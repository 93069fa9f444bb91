"""textDocument/definition: custom checks -> checkspec.yaml, targets and `fn` -> the `def`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .files import location, reader
from .guard import guarded

if TYPE_CHECKING:
    from .server import CheckspecServer


def register(server: CheckspecServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @guarded(list)
    def definition(ls: CheckspecServer, params: types.DefinitionParams) -> list[types.Location]:
        from ..analysis.definition import definition as definition_at

        doc = ls.store.get(params.text_document.uri)
        if doc is None or doc.too_large:
            return []
        read = reader(ls)
        position = ls.codec(doc).from_lsp(params.position)
        places = definition_at(ls.store.analysis(doc), position, doc.workspace, read, doc.folder)
        return [location(ls, place.path, place.range, read) for place in places]
