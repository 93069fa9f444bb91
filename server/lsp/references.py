"""textDocument/references: every use of a custom check in the workspace, open or not."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from .feature import DocumentRequest, document_request
from .files import location, reader


@document_request(types.TEXT_DOCUMENT_REFERENCES, empty=list)
def references(request: DocumentRequest[types.ReferenceParams]) -> list[types.Location]:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis import custom_checks
    from ..analysis.references import references as references_of

    ls, doc = request.ls, request.doc
    found = custom_checks.identifier_at(request.analysis, request.position)
    if found is None:
        return []
    read = reader(ls)
    places = references_of(
        found[0],
        doc.workspace,
        read,
        include_definition=request.params.context.include_declaration,
        also=(Path(doc.path),) if doc.folder is not None else (),
    )
    return [location(ls, place.path, place.range, read) for place in places]
