"""Framing between the parent and its workers: a 4-byte length, then a pickle.

A frame holds a list of messages (tuples whose first item names them), so a worker that
finishes many small scenarios in one loop turn sends them in one write.
"""

from __future__ import annotations

import os
import pickle
import struct
from typing import Any

_HEADER = struct.Struct(">I")
HEADER_SIZE = _HEADER.size

Message = tuple[Any, ...]

# The environment variable holding the pid of the process that started a worker.
PARENT_VARIABLE = "CHECKSPEC_WORKER_PARENT"


def encode(messages: list[Message]) -> bytes:
    payload = pickle.dumps(messages, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(payload)) + payload


def decode_length(header: bytes) -> int:
    return int(_HEADER.unpack(header)[0])


def decode(payload: bytes) -> list[Message]:
    messages = pickle.loads(payload)
    if not isinstance(messages, list):
        raise ValueError("a frame must hold a list of messages")
    return messages


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_exactly(fd: int, size: int) -> bytes | None:
    """`size` bytes from a blocking descriptor; None at end of file."""
    chunks: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> list[Message] | None:
    header = read_exactly(fd, HEADER_SIZE)
    if header is None:
        return None
    payload = read_exactly(fd, decode_length(header))
    return None if payload is None else decode(payload)
