"""textDocument/documentLink: `python:` targets and `fn` references open their `def` line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .files import uri_of
from .guard import guarded

if TYPE_CHECKING:
    from .server import CheckspecServer


def register(server: CheckspecServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_DOCUMENT_LINK, types.DocumentLinkOptions(resolve_provider=False)
    )
    @guarded(list)
    def document_link(
        ls: CheckspecServer, params: types.DocumentLinkParams
    ) -> list[types.DocumentLink]:
        from ..analysis.links import document_links

        doc = ls.store.get(params.text_document.uri)
        if doc is None or doc.too_large:
            return []
        codec = ls.codec(doc)
        return [
            types.DocumentLink(
                range=codec.range(link.range),
                target=f"{uri_of(link.path)}#L{link.line + 1}",
                tooltip=f"Open {link.path.name}, line {link.line + 1}",
            )
            for link in document_links(ls.store.analysis(doc), doc.workspace, doc.folder)
        ]
