"""What the server may ask of the editor on the other end of the connection.

pygls's `LanguageServer` provides all of it (CheckspecServer is one). The modules below
the features that talk to the editor (guard.py's error log, runs.py's progress,
last_runs.py's refresh) are typed against this protocol alone; `Host` (host.py), what
the features get, extends it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from lsprotocol import types
    from pygls.progress import Progress

    from .protocol import CheckspecProtocol


class Client(Protocol):
    @property
    def protocol(self) -> CheckspecProtocol:
        """The connection: notifications, the request being handled, run cancel hooks."""
        ...

    @property
    def client_capabilities(self) -> types.ClientCapabilities: ...

    @property
    def work_done_progress(self) -> Progress: ...

    def window_log_message(self, params: types.LogMessageParams) -> None: ...

    def window_show_message(self, params: types.ShowMessageParams) -> None: ...

    def text_document_publish_diagnostics(self, params: types.PublishDiagnosticsParams) -> None: ...

    def workspace_inlay_hint_refresh(self, params: None) -> object: ...

    def workspace_code_lens_refresh(self, params: None) -> object: ...

    def workspace_diagnostic_refresh(self, params: None) -> object: ...

    async def workspace_configuration_async(
        self, params: types.ConfigurationParams
    ) -> Sequence[Any | None]: ...

    async def workspace_apply_edit_async(
        self, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult: ...

    async def client_register_capability_async(self, params: types.RegistrationParams) -> None: ...
