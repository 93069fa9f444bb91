"""initialize, initialized and shutdown: the editor's settings as first given, the analysis
loaded while idle, the checkspec.yaml watcher asked for, the worker pool closed."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .configuration import apply_settings, can_pull_config, watch_configs
from .feature import handler
from .settings import EditorSettings
from .workspace_scan import close_analyser, watch_spec_files

if TYPE_CHECKING:
    from .host import Host


@handler(types.INITIALIZE)
def initialize(ls: Host, params: types.InitializeParams) -> None:
    ls.store.editor = EditorSettings.from_client(params.initialization_options)
    ls.given_options = params.initialization_options is not None


@handler(types.INITIALIZED)
def initialized(ls: Host, params: types.InitializedParams) -> None:
    # While the client sends the first document (a big one takes a while to encode
    # and send), load what its analysis needs.
    asyncio.get_running_loop().call_soon(_warm_up, ls)
    ls.spawn(watch_configs(ls))
    ls.spawn(watch_spec_files(ls))  # workspace diagnostics (pull clients)
    if not ls.given_options and can_pull_config(ls):
        ls.spawn(apply_settings(ls, None))


@handler(types.SHUTDOWN)
async def shutdown(ls: Host, params: Any) -> None:
    await ls.runs.aclose()  # no worker process outlives the server
    close_analyser()  # nor the workspace diagnostics' analysing process


def _warm_up(ls: Host) -> None:
    try:
        ls.store.warm_up()
    except Exception as exc:  # the first document then loads them (and says why)
        ls.log(f"could not load the analysis ahead of the first document: {exc}")
