"""textDocument/codeLens: "▶ Run scenario" on each runnable scenario, "▶ Run all" on line 1,
the last run's outcome, and why a scenario cannot run."""

from __future__ import annotations

from lsprotocol import types

from .convert import to_code_lens
from .feature import DocumentRequest, document_request


@document_request(
    types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False), empty=list
)
def code_lens(request: DocumentRequest[types.CodeLensParams]) -> list[types.CodeLens]:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.lenses import code_lenses

    doc, codec = request.doc, request.codec
    settings = doc.settings
    lenses = code_lenses(
        request.analysis,
        doc.text,
        request.ls.last_runs.of(doc.uri),
        model=settings.model,
        prices=dict(settings.prices),
    )
    return [to_code_lens(lens, doc.uri, codec) for lens in lenses]
