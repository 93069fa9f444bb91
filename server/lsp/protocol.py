"""The LSP protocol, with two choices pygls makes differently.

Position encoding: made before pygls makes its own.

pygls picks the client's first preferred encoding, which may be utf-8; our columns are
code points, so we take utf-32 when offered (no conversion at all) and else utf-16, the
encoding every client supports. The client's offer is narrowed before pygls reads it.

Answering `initialize` twice: the first answer went out before pygls was imported
(early_initialize.py); pygls still handles the request, and its answer is checked
against that one and dropped.

Cancelling a run: pygls answers a cancelled request at once and lets the handler go
on; a run must stop its workers and answer with the scenarios that finished. Run
commands register a hook by request id, and the client's workDoneToken is kept for them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Generator
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, lsp_method

from .convert import negotiate_encoding

log = logging.getLogger(__name__)


class CheckspecProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # By request id: the workDoneToken an executeCommand carried, and how to cancel it.
        self.work_done_tokens: dict[Any, types.ProgressToken | None] = {}
        self.cancel_hooks: dict[Any, Callable[[], None]] = {}
        # Commands cancelled before they registered a hook (they awaited something first).
        self._cancelled_early: set[Any] = set()
        # By request id: results already sent before pygls started (early_initialize.py).
        self.answered: dict[Any, Any] = {}

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        # pygls would apply each change to its own copy of the text by walking every line in
        # Python (and split lines at U+2028): the server applies it to its copy
        # (documents.py) in place of that, then hands pygls the result (`share_text`).
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    def share_text(self, uri: str, text: str, version: int | None) -> None:
        """pygls's copy of an open document is the server's text (no copy is made)."""
        document = self.workspace.text_documents.get(unquote(uri))
        if document is not None:
            document._source = text  # noqa: SLF001
            document.version = version

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        general = params.capabilities.general
        if general is not None:
            offered = general.position_encodings
            general.position_encodings = [
                negotiate_encoding(list(offered) if offered is not None else None)
            ]
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        text_document = params.capabilities.text_document
        if text_document is None or text_document.diagnostic is None:
            # Pull diagnostics only for clients that pull; the others get them pushed.
            result.capabilities.diagnostic_provider = None
        return result

    # Runs: their progress token and what a $/cancelRequest of them does ---------------

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(
        self, params: types.ExecuteCommandParams
    ) -> Generator[Any, Any, Any]:
        request = self.msg_id
        if request is not None:
            self.work_done_tokens[request] = params.work_done_token
        try:
            return (yield from super().lsp_workspace__execute_command(params))
        finally:
            self.work_done_tokens.pop(request, None)
            self.cancel_hooks.pop(request, None)
            self._cancelled_early.discard(request)

    def on_cancel(self, request: Any, hook: Callable[[], None]) -> None:
        """Call `hook` when request `request` is cancelled, at once if it was already."""
        if request is None:
            return
        self.cancel_hooks[request] = hook
        if request in self._cancelled_early:
            hook()

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        # pygls would drop the request's answer and leave the command running; a run
        # stops instead and answers with what finished.
        hook = self.cancel_hooks.get(msg_id)
        if hook is not None:
            hook()
            return
        if msg_id in self.work_done_tokens:
            # A command that has not reached its hook yet (its task starts on the next
            # turn of the loop, or it awaits something first): it finds the cancel there.
            self._cancelled_early.add(msg_id)
            return
        super()._handle_cancel_notification(msg_id)

    # Requests answered before pygls started ------------------------------------------

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        if not self.drop_answered(msg_id, result, error):
            super()._send_response(msg_id, result, error)

    def as_json(self, message: Any) -> Any:
        """A message as it goes over the wire (pygls's converter), as plain JSON data."""
        return json.loads(json.dumps(message, default=self._serialize_message))

    def drop_answered(self, msg_id: Any, result: Any, error: Any) -> bool:
        """Whether this answer already went out; logged when it differs from that one."""
        if msg_id not in self.answered:
            return False
        sent = self.answered.pop(msg_id)
        if error is not None:
            log.error("request %r failed after it was answered early: %s", msg_id, error)
            return True
        computed = self.as_json(result)
        if computed != sent:  # the table is stale: `make schema` regenerates it
            log.error(
                "request %r was answered early with %s, but the server computes %s",
                msg_id,
                json.dumps(sent, sort_keys=True),
                json.dumps(computed, sort_keys=True),
            )
        return True
