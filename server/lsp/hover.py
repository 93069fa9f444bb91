"""textDocument/hover: check documentation, parameter docs, JSONPaths on recorded data,
and on a scenario's name after a run, that run's transcript."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .convert import to_hover
from .guard import guarded

if TYPE_CHECKING:
    from .server import CheckspecServer


def register(server: CheckspecServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded(lambda: None)
    def hover(ls: CheckspecServer, params: types.HoverParams) -> types.Hover | None:
        from ..analysis.hover import hover as hover_at
        from ..analysis.hover import last_run_hover

        doc = ls.store.get(params.text_document.uri)
        if doc is None or doc.too_large:
            return None
        codec = ls.codec(doc)
        document = ls.store.analysis(doc)
        position = codec.from_lsp(params.position)
        found = last_run_hover(document, doc.text, ls.last_runs.of(doc.uri), position)
        found = found or hover_at(document, position, doc.workspace)
        return to_hover(found, codec) if found is not None else None
