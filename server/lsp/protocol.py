"""The LSP protocol with our position-encoding choice made before pygls makes its own.

pygls picks the client's first preferred encoding, which may be utf-8; our columns are
code points, so we take utf-32 when offered (no conversion at all) and else utf-16, the
encoding every client supports. The client's offer is narrowed before pygls reads it.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, lsp_method

from .convert import negotiate_encoding


class CheckspecProtocol(LanguageServerProtocol):
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        general = params.capabilities.general
        if general is not None:
            general.position_encodings = [negotiate_encoding(general.position_encodings)]
        return (yield from super().lsp_initialize(params))
