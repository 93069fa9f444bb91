"""textDocument/codeLens: "▶ Run scenario" on each runnable scenario, "▶ Run all" on line 1,
the last run's outcome, and why a scenario cannot run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .convert import to_code_lens
from .guard import guarded

if TYPE_CHECKING:
    from .server import CheckspecServer


def register(server: CheckspecServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    @guarded(list)
    def code_lens(ls: CheckspecServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        from ..analysis.lenses import code_lenses

        doc = ls.store.get(params.text_document.uri)
        if doc is None or doc.too_large:
            return []
        codec = ls.codec(doc)
        lenses = code_lenses(ls.store.analysis(doc), doc.text, ls.last_runs.of(doc.uri))
        return [to_code_lens(lens, doc.uri, codec) for lens in lenses]
