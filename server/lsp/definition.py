"""textDocument/definition: custom checks -> checkspec.yaml, targets and `fn` -> the `def`."""

from __future__ import annotations

from lsprotocol import types

from .feature import DocumentRequest, document_request
from .files import location, reader


@document_request(types.TEXT_DOCUMENT_DEFINITION, empty=list)
def definition(request: DocumentRequest[types.DefinitionParams]) -> list[types.Location]:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.definition import definition as definition_at

    ls, doc = request.ls, request.doc
    read = reader(ls)
    places = definition_at(request.analysis, request.position, doc.workspace, read, doc.folder)
    return [location(ls, place.path, place.range, read) for place in places]
