"""textDocument/hover: check documentation, parameter docs, JSONPaths on recorded data,
and on a scenario's name after a run, that run's transcript."""

from __future__ import annotations

from lsprotocol import types

from .convert import to_hover
from .feature import DocumentRequest, document_request


@document_request(types.TEXT_DOCUMENT_HOVER, empty=lambda: None)
def hover(request: DocumentRequest[types.HoverParams]) -> types.Hover | None:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.hover import hover as hover_at
    from ..analysis.hover import last_run_hover

    doc, document, position = request.doc, request.analysis, request.position
    found = last_run_hover(document, doc.text, request.ls.last_runs.of(doc.uri), position)
    found = found or hover_at(document, position, doc.workspace, doc.resolved)
    return to_hover(found, request.codec) if found is not None else None
