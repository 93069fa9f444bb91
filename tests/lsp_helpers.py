"""What the language-server tests' clients share."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient


def accept_server_requests(client: LanguageClient) -> None:
    """Answer the requests a running server sends to its client (dynamic registration of
    file watchers, code lens refreshes after a run) as an editor would: with nothing."""

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        return None

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def refresh_lenses(params: None) -> None:
        return None
