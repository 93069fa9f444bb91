"""What a feature needs from the server: the open documents, runs and their last results,
position conversion, the editor (client.py) and the log.

Every handler is typed against `Host`, never against CheckspecServer (server.py), which
is the one implementation: server.py imports the features to register them, and no
feature imports server.py.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from .client import Client

if TYPE_CHECKING:
    import asyncio
    from pathlib import Path

    from lsprotocol import types

    from .convert import PositionCodec
    from .documents import DocumentStore, OpenDocument
    from .last_runs import LastRuns
    from .runs import Runs


class Host(Client, Protocol):
    given_options: bool  # initializationOptions carried the settings (lifecycle.py)

    @property
    def store(self) -> DocumentStore:
        """The open documents (their text, analysis, workspace and settings)."""
        ...

    @property
    def runs(self) -> Runs: ...

    @property
    def last_runs(self) -> LastRuns: ...

    @property
    def timers(self) -> dict[str, asyncio.TimerHandle]:
        """Pending diagnostics, by document URI (diagnostics.publish_soon)."""
        ...

    @property
    def debounce(self) -> float:
        """The longest pause in typing diagnostics wait for."""
        ...

    @property
    def encoding(self) -> str:
        """The negotiated position encoding ("utf-32" or "utf-16")."""
        ...

    def codec(self, doc: OpenDocument) -> PositionCodec:
        """Positions of this document between the analysis (code points) and the client."""
        ...

    def workspace_roots(self) -> list[Path]:
        """The folders whose spec files make up the workspace (open or not)."""
        ...

    def log(self, message: str, kind: types.MessageType = ...) -> None:
        """A line in the editor's log (window/logMessage)."""
        ...

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        """Run in the background, kept alive until done."""
        ...
