"""workspace/symbol: the scenarios of every spec file of the workspace, open or not
(fuzzy on names, inputs and tags). The index (analysis/workspace_symbols.py) is kept for
the session and re-reads a file only when its text changed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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
def workspace_symbol(
    ls: Host, params: types.WorkspaceSymbolParams
) -> list[types.SymbolInformation]:
    from ..analysis.workspace_symbols import search
    from .convert import PositionCodec

    index = workspace_index(ls)
    found = search(index, params.query)
    codecs: dict[object, PositionCodec] = {}
    symbols = []
    for symbol in found:
        text = index.files[symbol.path.resolve()].text
        codec = codecs.get(symbol.path)
        if codec is None:
            codec = codecs[symbol.path] = PositionCodec(text, ls.encoding)
        tags = f" [{', '.join(symbol.tags)}]" if symbol.tags else ""
        symbols.append(
            types.SymbolInformation(
                name=symbol.name,
                kind=types.SymbolKind.Class,
                location=types.Location(uri=uri_of(symbol.path), range=codec.range(symbol.range)),
                container_name=f"{symbol.path.name}{tags}",
            )
        )
    return symbols
