"""workspace/symbol: the scenarios of every spec file of the workspace, open or not
(fuzzy on names, inputs and tags). The index (analysis/workspace_symbols.py) is kept for
the session and re-reads a file only when its text changed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .feature import handler
from .files import reader, uri_of

if TYPE_CHECKING:
    from ..analysis.workspace_symbols import WorkspaceIndex
    from .host import Host

_INDEXES: dict[int, WorkspaceIndex] = {}


def workspace_index(ls: Host) -> WorkspaceIndex:
    """The server's index of the workspace's scenarios, brought up to date."""
    # Deferred: the analysis loads with the first request (start-up time).
    from ..analysis.workspace_symbols import WorkspaceIndex

    index = _INDEXES.setdefault(id(ls), WorkspaceIndex())
    index.refresh(ls.workspace_roots(), reader(ls), [Path(d.path) for d in ls.store.all()])
    return index


@handler(types.WORKSPACE_SYMBOL, types.WorkspaceSymbolOptions(), empty=list)
def workspace_symbol(ls: Host, params: types.WorkspaceSymbolParams) -> list[dict[str, Any]]:
    """SymbolInformation as plain JSON data: an answer may hold 500 symbols, and typed
    objects are each converted again as the answer is written (most of its cost)."""
    from ..analysis.workspace_symbols import search
    from .convert import PositionCodec

    index = workspace_index(ls)
    found = search(index, params.query)
    places: dict[Path, tuple[PositionCodec, str]] = {}
    symbols = []
    for symbol in found:
        place = places.get(symbol.path)
        if place is None:
            known = index.files[symbol.path.resolve()]
            codec = PositionCodec(known.text, ls.encoding, known.lines)
            place = places[symbol.path] = (codec, uri_of(symbol.path))
        codec, uri = place
        start, end = codec.to_lsp(symbol.range.start), codec.to_lsp(symbol.range.end)
        tags = f" [{', '.join(symbol.tags)}]" if symbol.tags else ""
        symbols.append(
            {
                "name": symbol.name,
                "kind": types.SymbolKind.Class.value,
                "location": {
                    "uri": uri,
                    "range": {
                        "start": {"line": start.line, "character": start.character},
                        "end": {"line": end.line, "character": end.character},
                    },
                },
                "containerName": f"{symbol.path.name}{tags}",
            }
        )
    return symbols
