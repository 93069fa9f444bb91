"""textDocument/inlayHint: the last run's outcome of each check at its line."""

from __future__ import annotations

from lsprotocol import types

from .feature import DocumentRequest, document_request


@document_request(
    types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False), empty=list
)
def inlay_hint(request: DocumentRequest[types.InlayHintParams]) -> list[types.InlayHint]:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.result_hints import result_hints

    doc = request.doc
    runs = request.ls.last_runs.of(doc.uri)
    if not runs:
        return []
    codec, wanted = request.codec, request.range
    return [
        types.InlayHint(
            position=codec.to_lsp(hint.position),
            label=hint.label,
            tooltip=types.MarkupContent(kind=types.MarkupKind.Markdown, value=hint.tooltip),
            padding_left=True,
        )
        for hint in result_hints(request.analysis, doc.text, runs)
        if wanted.start.line <= hint.position.line <= wanted.end.line
    ]
