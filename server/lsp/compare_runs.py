"""workspace/executeCommand `checkspec.compareWithPrevious [uri]`: the compare page of the
file's last two recorded runs (the run history, engine/history), for the editor's webview.

It reads the history's SQLite file, in a thread (never on the event loop), and runs
nothing: no user code, no network.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ..analysis.command_names import COMPARE_WITH_PREVIOUS
from .feature import command
from .host import Host  # at run time: pygls reads the commands' annotations


@command(COMPARE_WITH_PREVIOUS, empty=lambda: {"error": "could not compare the runs; see the log"})
async def compare_with_previous(ls: Host, *args: Any) -> dict[str, Any]:
    first = args[0] if args else None
    uri = first.get("uri") if isinstance(first, dict) else first
    if not isinstance(uri, str) or not uri.startswith("file:"):
        return {"error": f"{COMPARE_WITH_PREVIOUS} takes [file uri]"}
    # Deferred: pygls's uri helper and the history load on first use (start-up time).
    from pygls.uris import to_fs_path

    from ..analysis.run_history import compare_previous

    path = to_fs_path(uri)
    if path is None:
        return {"error": f"not a file: {uri}"}
    root = ls.store.workspaces.root_of(path)
    return await asyncio.to_thread(compare_previous, Path(path), root)
