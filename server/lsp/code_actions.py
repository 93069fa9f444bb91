"""textDocument/codeAction: the quick fixes problems carry (e.g. rename a misspelt kind)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .convert import to_code_action
from .guard import guarded

if TYPE_CHECKING:
    from .server import CheckspecServer


def register(server: CheckspecServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    @guarded(list)
    def code_action(ls: CheckspecServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        from ..analysis.actions import quick_fixes

        doc = ls.store.get(params.text_document.uri)
        only = params.context.only
        if doc is None or doc.too_large or (only and types.CodeActionKind.QuickFix not in only):
            return []
        codec = ls.codec(doc)
        fixes = quick_fixes(ls.store.analysis(doc), codec.from_range(params.range), doc.workspace)
        return [to_code_action(fix, doc.uri, codec) for fix in fixes]
