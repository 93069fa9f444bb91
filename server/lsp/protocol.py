"""The LSP protocol, with two choices pygls makes differently.

Position encoding: made before pygls makes its own.

pygls picks the client's first preferred encoding, which may be utf-8; our columns are
code points, so we take utf-32 when offered (no conversion at all) and else utf-16, the
encoding every client supports. The client's offer is narrowed before pygls reads it.

Answering `initialize` twice: the first answer went out before pygls was imported
(early_initialize.py); pygls still handles the request, and its answer is checked
against that one and dropped.

Invalid params and requests before `initialize` (JSON-RPC 2.0 and LSP): pygls would log a
traceback for params that do not fit the method's types (a string, a line of 2**63, a
character of -1, a list where a number goes) and answer nothing, and answer any request
before `initialize` with `null`. Here the first is answered -32602 Invalid params (with a
one-line log), the second -32002 ServerNotInitialized; a notification before
`initialize` is dropped (`exit` aside), as LSP says. What is not a JSON-RPC message at all
(a batch, an object as id) never reaches pygls (framing.py: -32600).

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

from cattrs.errors import BaseValidationError
from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage

from .convert import negotiate_encoding

log = logging.getLogger(__name__)


INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002


class _Unreadable:
    """A message whose params do not fit its method's types (structure_message)."""

    def __init__(self, data: dict[str, Any], why: str) -> None:
        self.id = data.get("id")
        self.method = data["method"]
        self.why = why


class CheckspecProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_seen = False  # requests before it are answered -32002
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

    # Messages pygls would not answer (see the module docstring) ------------------------

    def structure_message(self, data: dict[str, Any]) -> Any:
        """A request's or notification's params in the method's types, else `_Unreadable`."""
        if "jsonrpc" not in data or not isinstance(data.get("method"), str):
            return super().structure_message(data)  # a response, or a nested object
        method = data["method"]
        params = data.get("params")
        if params is not None and not isinstance(params, dict | list):
            return _Unreadable(data, f"params must be an object or an array, not {params!r:.40}")
        fallback = JsonRPCRequestMessage if "id" in data else JsonRPCNotification
        kind = self.get_message_type(method) or fallback
        try:
            return self._converter.structure(data, kind)
        except (BaseValidationError, ValueError, TypeError, RecursionError) as exc:
            return _Unreadable(data, _first_line(exc))

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Unreadable):
            log.warning("%s refused: invalid params (%s)", message.method, message.why)
            if message.id is not None:
                error = types.ResponseError(
                    INVALID_PARAMS, f"Invalid params for {message.method}: {message.why}"
                )
                self._send_response(message.id, error=error)
            return
        method = getattr(message, "method", None)
        if not self.initialize_seen and method is not None:
            if method == types.INITIALIZE:
                self.initialize_seen = True
            elif method != types.EXIT:
                if getattr(message, "id", None) is not None:
                    error = types.ResponseError(
                        SERVER_NOT_INITIALIZED, f"{method} before initialize"
                    )
                    self._send_response(message.id, error=error)
                return  # a notification before initialize is dropped (LSP)
        super().handle_message(message)

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


def _first_line(exc: BaseException) -> str:
    """What cattrs says, first line and first cause: enough to see which field is wrong."""
    causes = getattr(exc, "exceptions", None)
    while causes:  # an ExceptionGroup per level: the innermost says what is wrong
        exc = causes[0]
        causes = getattr(exc, "exceptions", None)
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:200]
