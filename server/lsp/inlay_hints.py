"""textDocument/inlayHint: the last run's outcome of each check at its line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .guard import guarded

if TYPE_CHECKING:
    from .server import CheckspecServer


def register(server: CheckspecServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    @guarded(list)
    def inlay_hint(ls: CheckspecServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        from ..analysis.result_hints import result_hints

        doc = ls.store.get(params.text_document.uri)
        runs = ls.last_runs.of(params.text_document.uri)
        if doc is None or doc.too_large or not runs:
            return []
        codec = ls.codec(doc)
        wanted = codec.from_range(params.range)
        return [
            types.InlayHint(
                position=codec.to_lsp(hint.position),
                label=hint.label,
                tooltip=types.MarkupContent(kind=types.MarkupKind.Markdown, value=hint.tooltip),
                padding_left=True,
            )
            for hint in result_hints(ls.store.analysis(doc), doc.text, runs)
            if wanted.start.line <= hint.position.line <= wanted.end.line
        ]
