"""Start the checkspec language server on stdio (`checkspec lsp`, `python -m checkspec.server`)."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from typing import BinaryIO

from checkspec.engine.core.environment import process_switches

from .early_initialize import answer_first
from .framing import FramedInput


def _protocol_streams() -> tuple[int, BinaryIO]:
    """Keep stdin/stdout for the protocol alone.

    A run imports user code; a stray `print()` or `input()` in a target would corrupt the
    JSON-RPC stream. The protocol gets private copies of the descriptors, and what user
    code sees as stdout goes to stderr (the editor's log), its stdin reads nothing.
    """
    protocol_in = os.dup(sys.stdin.fileno())  # read whole messages only (framing.py)
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, sys.stdin.fileno())
    os.close(devnull)
    sys.stdout = sys.stderr
    return protocol_in, protocol_out


def _writer(stream: BinaryIO) -> Callable[[bytes], None]:
    """Write one whole message (pygls writes each of its own in one call too)."""

    def write(data: bytes) -> None:
        stream.write(data)
        stream.flush()

    return write


def _steady_malloc() -> None:
    """Give big freed blocks back to the system at once (glibc; elsewhere nothing to do).

    Each edit of a huge document makes a new copy of its text (20 MB) and frees the old
    one. glibc raises its mmap threshold after the first such free, and then serves the
    copies from its heap, which does not shrink: the process grew by a text per edit.
    """
    try:
        import ctypes  # deferred: main() answers `initialize` first (start-up time)

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD: fixed at 1 MB, no longer adjusted
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass


class _RedactingLog(logging.Filter):
    """The log (the editor's output panel) with every secret masked: pygls logs each
    message it sends (hovers, settings), a DEBUG log the documents' text too. The engine's
    redaction (core/redact.py) loads with the first record, not before `initialize`."""

    def filter(self, record: logging.LogRecord) -> bool:
        from checkspec.engine.core.redact import RedactingFilter
        from checkspec.engine.llm import snapshot  # noqa: F401 (the secrets' source)

        return RedactingFilter().filter(record)


def main() -> None:
    _steady_malloc()
    # The server's own switches (CHECKSPEC_LSP_*, CHECKSPEC_GC_LOG): read once, here, by
    # the one reader of the environment (standard library only: nothing else loads yet).
    switches = process_switches()
    logging.basicConfig(
        level=switches.log_level,
        stream=sys.stderr,
        format="%(asctime)s %(name)s %(levelname)s: %(message)s",
    )
    for handler in logging.getLogger().handlers:
        handler.addFilter(_RedactingLog())
    if switches.gc_log:
        # Deferred: a debugging aid; without it no engine module but the environment's reader
        # loads before `initialize`.
        from checkspec.engine.core.gcpause import log_pauses

        log_pauses(switches.gc_log)
    protocol_fd, protocol_out = _protocol_streams()
    # Each message is checked whole before anything reads it: a framing error (a wrong
    # or missing Content-Length, one over the limit) is logged and exits the process,
    # so the client restarts it rather than talk to a server that hears nothing.
    # A well-framed body that is not JSON is answered (-32700) and skipped.
    protocol_in = FramedInput(
        protocol_fd,
        max_bytes=switches.max_message_bytes,
        body_timeout=switches.body_timeout,
        answer=_writer(protocol_out),
    )
    # The editor waits for this answer; pygls takes half a second to import.
    first = answer_first(protocol_in, protocol_out)  # type: ignore[arg-type]
    from .lsp.server import create_server  # deferred: pygls (start-up time, above)

    server = create_server()
    if first.result is not None:
        server.protocol.answered[first.request_id] = first.result
    server.start_io(first.reader(protocol_in), protocol_out)  # type: ignore[arg-type]


if __name__ == "__main__":  # pragma: no cover
    main()
