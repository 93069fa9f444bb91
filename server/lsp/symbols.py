"""textDocument/documentSymbol: scenarios > steps > checks (custom checks in checkspec.yaml)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .convert import to_document_symbol
from .guard import guarded

if TYPE_CHECKING:
    from .server import CheckspecServer


def register(server: CheckspecServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded(list)
    def document_symbol(
        ls: CheckspecServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol]:
        from ..analysis.symbols import document_symbols

        doc = ls.store.get(params.text_document.uri)
        if doc is None or doc.too_large:
            return []
        codec = ls.codec(doc)
        return [to_document_symbol(s, codec) for s in document_symbols(ls.store.analysis(doc))]
