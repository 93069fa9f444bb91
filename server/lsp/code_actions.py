"""textDocument/codeAction: the quick fixes problems carry (e.g. rename a misspelt kind)."""

from __future__ import annotations

from lsprotocol import types

from .convert import to_code_action
from .feature import DocumentRequest, document_request


@document_request(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    empty=list,
)
def code_action(request: DocumentRequest[types.CodeActionParams]) -> list[types.CodeAction]:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.actions import quick_fixes

    only = request.params.context.only
    if only and types.CodeActionKind.QuickFix not in only:
        return []
    doc, codec = request.doc, request.codec
    fixes = quick_fixes(request.analysis, request.range, doc.workspace)
    return [to_code_action(fix, doc.uri, codec) for fix in fixes]
