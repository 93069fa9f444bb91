"""The server's input, read one whole LSP message at a time (standard library only, and
the engine's reader of the environment, which is too).

pygls reads `Content-Length` headers leniently: a header it cannot read is skipped, a
length that lies leaves it reading the next message's bytes as a body (or waiting for
bytes that never come), and a huge length is allocated at once (MemoryError). Any of
them leaves a server that is alive and answers nothing, which an editor cannot tell
from a busy one. Here every message is checked before pygls sees it:

- the header lines are `Name: value` lines (each at most 8 KiB, at most 32 of them),
  ending with an empty line, and one of them is a `Content-Length` of digits;
- a length over the limit (`CHECKSPEC_LSP_MAX_MESSAGE_MB`, 64 MiB by default) is refused
  before any of its body is read;
- the body arrives in full within `CHECKSPEC_LSP_BODY_TIMEOUT` seconds (10) of its
  header.

A message that fails any of these is a framing error: the stream cannot be trusted past
it, so what was seen is logged and the process exits with code 1; the editor's client
restarts a server that exits (VS Code's does, up to 5 times in 3 minutes).

A well-framed body that is not UTF-8 JSON is a protocol error, not a framing one: it is
answered as JSON-RPC 2.0 says (error -32700, with the request's id when one can be read,
else null), logged in one line, and skipped; the server goes on. So is JSON that is not a
request, a notification or a response of JSON-RPC 2.0 (error -32600 Invalid Request, id
null): a batch (an array: LSP has none, and pygls would fail on it with a traceback), an
id that is neither an integer nor a string (an object, `1e400`, which Python reads as an
infinity and would answer as `Infinity`, not JSON), a method that is not a string, a
`jsonrpc` other than "2.0". Their params are checked later, against the method's types
(protocol.py: -32602).
A wrong Content-Length shows up at the next header, which is then not one: framing lost.
pygls gets each good message as `Content-Length: N` + the body, through `readline` and
`read`.
"""

from __future__ import annotations

import json
import logging
import os
import re
import select
import sys
from collections.abc import Callable
from typing import Any, NoReturn

# The limits' defaults; the server's own switches set them (read once at its start).
from checkspec.engine.core.environment import DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_MESSAGE_MB

log = logging.getLogger("checkspec.server.framing")

MAX_HEADER_LINE = 8192
MAX_HEADER_LINES = 32
EXIT_FRAMING = 1
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
# No LSP message nests this deep; a handler walking such params could hit Python's
# recursion limit (~1,000 levels, where JSON past it is not even read).
MAX_NESTING = 200
_CHUNK = 1 << 20
# A header: an HTTP token (RFC 9110), a colon, a value.
_HEADER = re.compile(rb"([A-Za-z0-9!#$%&'*+.^_`|~-]+):[ \t]*([^\r\n]*)\r?\n")


class FramingError(Exception):
    """The input is not a well-framed LSP message."""


class FramedInput:
    """`readline`/`read` over the messages of a descriptor, each checked whole first."""

    def __init__(
        self,
        fd: int,
        *,
        max_bytes: int | None = None,
        body_timeout: float | None = None,
        answer: Callable[[bytes], None] | None = None,
    ) -> None:
        self._fd = fd
        self._answer = answer  # writes a whole framed message to the client
        # The server passes its switches (engine/core/environment.py: read once at its
        # start); the defaults otherwise.
        self._max = max_bytes if max_bytes is not None else int(DEFAULT_MAX_MESSAGE_MB * (1 << 20))
        self._timeout = body_timeout if body_timeout is not None else DEFAULT_BODY_TIMEOUT
        self._input = bytearray()  # read from the descriptor, not yet framed
        self._frame = b""  # the current message as pygls gets it
        self._at = 0
        self._ended = False

    # What pygls and early_initialize call ---------------------------------------------

    def readline(self, size: int = -1) -> bytes:
        if not self._next():
            return b""
        end = self._frame.find(b"\n", self._at)
        end = len(self._frame) if end < 0 else end + 1
        if size >= 0:
            end = min(end, self._at + size)
        line, self._at = self._frame[self._at : end], end
        return line

    def read(self, size: int = -1) -> bytes:
        if not self._next():
            return b""
        end = len(self._frame) if size < 0 else min(len(self._frame), self._at + size)
        data, self._at = self._frame[self._at : end], end
        return data

    def close(self) -> None:
        os.close(self._fd)

    # Framing ----------------------------------------------------------------------------

    def _next(self) -> bool:
        """A current message with bytes left; False at a clean end of input."""
        if self._at < len(self._frame):
            return True
        if self._ended:
            return False
        while True:
            try:
                body = self._message()
            except FramingError as exc:
                fatal(str(exc))
            if body is None:
                self._ended = True
                return False
            refused = refusal(body)
            if refused is None:
                break
            self._refuse(body, *refused)
        self._frame = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        self._at = 0
        return True

    def _message(self) -> bytes | None:
        length: int | None = None
        seen: list[bytes] = []
        while True:
            line = self._line(first=not seen)
            if line is None:
                return None
            seen.append(line)
            if line in (b"\r\n", b"\n"):
                break
            found = _HEADER.fullmatch(line)
            if found is None:
                raise FramingError(f"not an LSP header line: {_shown(line)}")
            if len(seen) > MAX_HEADER_LINES:
                raise FramingError(f"more than {MAX_HEADER_LINES} header lines")
            if found.group(1).lower() == b"content-length":
                value = found.group(2).strip()
                if not value.isdigit() or len(value) > 20:
                    raise FramingError(f"a Content-Length that is not a number: {_shown(line)}")
                length = int(value)
        if length is None:
            headers = b"".join(seen)
            raise FramingError(f"a message without a Content-Length header: {_shown(headers)}")
        if length > self._max:
            raise FramingError(
                f"a message of {length} bytes, over the limit of {self._max} "
                "(CHECKSPEC_LSP_MAX_MESSAGE_MB); not read"
            )
        while len(self._input) < length:
            if not self._fill(self._timeout):
                raise FramingError(
                    f"the header announced {length} bytes, but only {len(self._input)} came "
                    f"before the input ended: {_shown(bytes(self._input))}"
                )
        body = bytes(self._input[:length])
        del self._input[:length]
        return body

    def _refuse(self, body: bytes, code: int, problem: str) -> None:
        """Answer a well-framed body that is not a JSON-RPC message (-32700, -32600), go on.

        A response (no method) is never answered, as JSON-RPC says: only logged."""
        log.warning("LSP message refused (%s): %s", problem, _shown(body))
        if self._answer is None or code == _NOT_ANSWERED:
            return
        title = _TITLES[code]
        error = {"code": code, "message": f"{title}: {problem}"}
        request_id = None if code == INVALID_REQUEST else _request_id(body)
        answer = {"jsonrpc": "2.0", "id": request_id, "error": error}
        payload = json.dumps(answer).encode()
        try:
            self._answer(b"Content-Length: %d\r\n\r\n%s" % (len(payload), payload))
        except OSError as exc:  # the client left; the next read says so
            log.warning("could not answer the refused message: %s", exc)

    def _line(self, *, first: bool) -> bytes | None:
        """One header line; None at a clean end of input (before any byte of a message)."""
        while True:
            end = self._input.find(b"\n", 0, MAX_HEADER_LINE)
            if end >= 0:
                line = bytes(self._input[: end + 1])
                del self._input[: end + 1]
                return line
            if len(self._input) >= MAX_HEADER_LINE:
                raise FramingError(
                    f"a header line longer than {MAX_HEADER_LINE} bytes: "
                    f"{_shown(bytes(self._input))}"
                )
            # Between messages the client may be quiet for as long as it likes.
            waiting = None if first and not self._input else self._timeout
            if not self._fill(waiting):
                if first and not self._input:
                    return None
                raise FramingError(
                    f"the input ended inside a message's header: {_shown(bytes(self._input))}"
                )

    def _fill(self, timeout: float | None) -> bool:
        """Read what is there; False at end of input. A timeout is a framing error."""
        if timeout is not None and os.name != "nt":
            ready, _, _ = select.select([self._fd], [], [], timeout)
            if not ready:
                raise FramingError(
                    f"a message stopped arriving: nothing for {timeout:g} s after "
                    f"{_shown(bytes(self._input))}"
                )
        chunk = os.read(self._fd, _CHUNK)
        if not chunk:
            return False
        self._input += chunk
        return True


_NOT_ANSWERED = 0  # a refused response or notification: logged, never answered
_TITLES = {
    PARSE_ERROR: "Parse error",
    INVALID_REQUEST: "Invalid Request",
    INVALID_PARAMS: "Invalid params",
}


def refusal(body: bytes) -> tuple[int, str] | None:
    """The error code and why `body` is not one JSON-RPC 2.0 message pygls can take, or
    None: -32700 not UTF-8 JSON, -32600 not a request, notification or response."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return PARSE_ERROR, f"not UTF-8 at byte {exc.start}"
    try:
        message = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return PARSE_ERROR, f"not JSON ({str(exc).split(':')[0]})"
    if isinstance(message, list):
        return INVALID_REQUEST, "a batch (an array); LSP sends one message at a time"
    if not isinstance(message, dict):
        return INVALID_REQUEST, "not a JSON-RPC message (an object)"
    problem = invalid_request(message)
    if problem is None:
        if not nested_deeper(message, MAX_NESTING):
            return None
        problem = f"params nested more than {MAX_NESTING} levels deep"
        if "method" in message and "id" in message:
            return INVALID_PARAMS, problem
        return _NOT_ANSWERED, problem  # a notification: never answered
    answered = "method" in message or not ("result" in message or "error" in message)
    return (INVALID_REQUEST if answered else _NOT_ANSWERED), problem


def invalid_request(message: dict[str, Any]) -> str | None:
    """Why an object is not a JSON-RPC 2.0 message pygls can answer, or None."""
    if message.get("jsonrpc") != "2.0":
        return 'not "jsonrpc": "2.0"'
    if "id" in message and not valid_id(message["id"]):
        return f"an id must be an integer or a string, not {_kind(message['id'])}"
    if "method" in message and not isinstance(message["method"], str):
        return f"a method must be a string, not {_kind(message['method'])}"
    if "method" not in message and "id" not in message:
        return "neither a method nor an id"
    return None


def nested_deeper(message: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than `limit` deep (a walk without recursion)."""
    level: list[Any] = [message]
    for _ in range(limit + 1):
        level = [
            inner
            for value in level
            for inner in (value.values() if isinstance(value, dict) else value)
            if isinstance(inner, dict | list)
        ]
        if not level:
            return False
    return True


def valid_id(value: Any) -> bool:
    """An LSP id: an integer or a string (JSON-RPC's fractional numbers and null aside;
    a JSON number read as a float, such as 1e400, could not be answered as JSON)."""
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, str)


def _kind(value: Any) -> str:
    if isinstance(value, float):
        return f"the number {value!r}"
    return {dict: "an object", list: "an array", bool: "a boolean", type(None): "null"}.get(
        type(value), type(value).__name__
    )


def _request_id(body: bytes) -> Any:
    """The id of a request whose body is JSON but not UTF-8; else None (JSON-RPC: null)."""
    try:
        message = json.loads(body.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, int | str) and not isinstance(found, bool) else None


def _shown(data: bytes, limit: int = 200) -> str:
    if len(data) <= limit:
        return repr(data)
    return f"{data[: limit // 2]!r} ... {data[-limit // 2 :]!r} ({len(data)} bytes)"


def fatal(why: str) -> NoReturn:
    """Log a framing error and exit: the client restarts the server with a clean stream."""
    log.error("LSP framing error, exiting so that the client restarts the server: %s", why)
    for handler in logging.getLogger().handlers:
        handler.flush()
    sys.stderr.flush()
    # os._exit skips atexit: a coverage.py measuring this process (`make test`) saves now.
    coverage = sys.modules.get("coverage")
    current = coverage.Coverage.current() if coverage is not None else None
    if current is not None:
        try:
            current.stop()
            current.save()
        except Exception:  # exiting regardless
            pass
    os._exit(EXIT_FRAMING)
