"""textDocument/completion: check kinds, parameters, values and `trace.` paths."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .convert import to_completion_item
from .guard import guarded

if TYPE_CHECKING:
    from .server import CheckspecServer

TRIGGERS = [".", ":", " ", "-"]


def register(server: CheckspecServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=TRIGGERS)
    )
    @guarded(lambda: None)
    def completion(
        ls: CheckspecServer, params: types.CompletionParams
    ) -> types.CompletionList | None:
        from ..analysis.completion import complete

        doc = ls.store.get(params.text_document.uri)
        if doc is None or doc.too_large:
            return None
        codec = ls.codec(doc)
        trigger = params.context.trigger_character if params.context else None
        items = complete(
            ls.store.recent_analysis(doc),
            doc.text,
            codec.from_lsp(params.position),
            doc.workspace,
            trigger=trigger,
            earlier=doc.last_parsed,
            snippets=_snippets(ls),
        )
        return types.CompletionList(
            is_incomplete=False, items=[to_completion_item(i, codec) for i in items]
        )


def _snippets(ls: CheckspecServer) -> bool:
    """The client takes snippets (tab stops) in completion items."""
    document = ls.client_capabilities.text_document
    completion = document.completion if document else None
    item = completion.completion_item if completion else None
    return bool(item and item.snippet_support)
