"""textDocument/completion: check kinds, parameters, values and `trace.` paths."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .convert import to_completion_item
from .feature import DocumentRequest, document_request

if TYPE_CHECKING:
    from .host import Host

TRIGGERS = [".", ":", " ", "-"]


@document_request(
    types.TEXT_DOCUMENT_COMPLETION,
    types.CompletionOptions(trigger_characters=TRIGGERS),
    empty=lambda: None,
)
def completion(request: DocumentRequest[types.CompletionParams]) -> types.CompletionList | None:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.completion import complete
    from .workspace_symbols import workspace_index

    doc, params = request.doc, request.params
    trigger = params.context.trigger_character if params.context else None
    items = complete(
        request.analysis,
        doc.text,
        request.position,
        doc.workspace,
        trigger=trigger,
        earlier=doc.last_parsed,
        snippets=_snippets(request.ls),
        tags=lambda: workspace_index(request.ls).tag_counts(),
    )
    codec = request.codec
    return types.CompletionList(
        is_incomplete=False, items=[to_completion_item(i, codec) for i in items]
    )


def _snippets(ls: Host) -> bool:
    """The client takes snippets (tab stops) in completion items."""
    document = ls.client_capabilities.text_document
    completion = document.completion if document else None
    item = completion.completion_item if completion else None
    return bool(item and item.snippet_support)
