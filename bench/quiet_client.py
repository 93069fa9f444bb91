"""The LSP client of the benches: a pygls client that answers what the server asks of
a client (registrations, configuration, progress tokens, refreshes) and drops what it
tells (logs, diagnostics pushed, progress, run events), so a bench measures the server.
Also the small file the LSP benches open beside their workload, and where in it they ask
for completion."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

OPEN_SCENARIO = """name: open
steps:
  - interacts:
      - {inputs: hi, outputs: hello}
    checks:
      - kind: string_matching
        keyword: hello
"""
OPEN_AT = types.Position(line=5, character=12)  # inside `string_matching`

# What the server tells a client, which a bench does not look at.
TOLD = (
    types.WINDOW_LOG_MESSAGE,
    types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
    types.PROGRESS,
    "checkspec/scenarioFinished",
    "checkspec/runs",
)


class QuietClient(LanguageClient):
    def __init__(self, *, heard: tuple[str, ...] = ()) -> None:
        """`heard`: what the server tells that a subclass handles itself."""
        super().__init__("bench-client", "1")

        @self.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            return None

        @self.feature(types.WORKSPACE_CONFIGURATION)
        def configuration(params: types.ConfigurationParams) -> list[Any]:
            return [None for _ in params.items]  # the editor sets nothing

        @self.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def progress(params: types.WorkDoneProgressCreateParams) -> None:
            return None

        @self.feature(types.WORKSPACE_DIAGNOSTIC_REFRESH)
        def refresh(params: None) -> None:
            return None

        for method in TOLD:
            if method not in heard:
                self.feature(method)(lambda params: None)
