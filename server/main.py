"""Start the checkspec language server on stdio (`checkspec lsp`, `python -m checkspec.server`)."""

from __future__ import annotations

import logging
import os
import sys
from typing import BinaryIO


def _protocol_streams() -> tuple[BinaryIO, BinaryIO]:
    """Keep stdin/stdout for the protocol alone.

    A run imports user code; a stray `print()` or `input()` in a target would corrupt the
    JSON-RPC stream. The protocol gets private copies of the descriptors, and what user
    code sees as stdout goes to stderr (the editor's log), its stdin reads nothing.
    """
    protocol_in = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, sys.stdin.fileno())
    os.close(devnull)
    sys.stdout = sys.stderr
    return protocol_in, protocol_out


def main() -> None:
    logging.basicConfig(
        level=os.environ.get("CHECKSPEC_LSP_LOG_LEVEL", "WARNING").upper(),
        stream=sys.stderr,
        format="%(asctime)s %(name)s %(levelname)s: %(message)s",
    )
    from .lsp.server import create_server

    server = create_server()
    protocol_in, protocol_out = _protocol_streams()
    server.start_io(protocol_in, protocol_out)


if __name__ == "__main__":  # pragma: no cover
    main()
