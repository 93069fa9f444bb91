"""textDocument/documentSymbol: scenarios > steps > checks (custom checks in checkspec.yaml)."""

from __future__ import annotations

from lsprotocol import types

from .convert import to_document_symbol
from .feature import DocumentRequest, document_request


@document_request(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, empty=list)
def document_symbol(
    request: DocumentRequest[types.DocumentSymbolParams],
) -> list[types.DocumentSymbol]:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.symbols import document_symbols

    codec = request.codec
    return [to_document_symbol(s, codec) for s in document_symbols(request.analysis)]
