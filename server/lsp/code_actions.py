"""textDocument/codeAction: the quick fixes problems carry (e.g. rename a misspelt kind);
on dataset files, "Generate N more like these" and "Mark reviewed" (generate_actions.py)."""

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
        types.CodeActionOptions(
            code_action_kinds=[
                types.CodeActionKind.QuickFix,
                types.CodeActionKind.RefactorRewrite,
                types.CodeActionKind.Source,
            ]
        ),
    )
    @guarded(list)
    def code_action(ls: CheckspecServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        from ..analysis.actions import quick_fixes
        from .generate import code_actions as generation_actions

        doc = ls.store.get(params.text_document.uri)
        only = params.context.only
        if doc is None or doc.too_large:
            return []
        codec = ls.codec(doc)
        found: list[types.CodeAction] = []
        if not only or types.CodeActionKind.QuickFix in only:
            within = codec.from_range(params.range)
            fixes = quick_fixes(ls.store.analysis(doc), within, doc.workspace)
            found = [to_code_action(fix, doc.uri, codec) for fix in fixes]
        return found + generation_actions(ls, doc, params, codec)
