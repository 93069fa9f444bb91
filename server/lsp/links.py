"""textDocument/documentLink: `python:` targets and `fn` references open their `def` line."""

from __future__ import annotations

from lsprotocol import types

from .feature import DocumentRequest, document_request
from .files import uri_of


@document_request(
    types.TEXT_DOCUMENT_DOCUMENT_LINK, types.DocumentLinkOptions(resolve_provider=False), empty=list
)
def document_link(request: DocumentRequest[types.DocumentLinkParams]) -> list[types.DocumentLink]:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.links import document_links

    doc, codec = request.doc, request.codec
    return [
        types.DocumentLink(
            range=codec.range(link.range),
            target=f"{uri_of(link.path)}#L{link.line + 1}",
            tooltip=f"Open {link.path.name}, line {link.line + 1}",
        )
        for link in document_links(request.analysis, doc.workspace, doc.folder)
    ]
