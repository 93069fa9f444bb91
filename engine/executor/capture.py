"""What a scenario's code prints, kept with that scenario's result.

A worker runs several scenarios at once on one event loop, so redirecting file
descriptors cannot tell their output apart. `sys.stdout` / `sys.stderr` are replaced by
writers that append to the buffer of the scenario running in the current context
(a ContextVar: asyncio tasks and `asyncio.to_thread` carry it). Writes outside any
scenario go to the process's real stream.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

# Kept per scenario: a target printing in a loop must not exhaust the worker's memory.
MAX_CHARS = 100_000


class Captured:
    """The first and last MAX_CHARS/2 characters written, and how many were cut."""

    def __init__(self, limit: int = MAX_CHARS) -> None:
        self._half = limit // 2
        self._head: list[str] = []
        self._head_len = 0
        self._tail = ""
        self._cut = 0

    def write(self, text: str) -> None:
        room = self._half - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
        if text:
            tail = self._tail + text
            if len(tail) > self._half:
                self._cut += len(tail) - self._half
                tail = tail[-self._half :]
            self._tail = tail

    def text(self) -> str:
        cut = f"\n[... {self._cut} characters cut ...]\n" if self._cut else ""
        return "".join(self._head) + cut + self._tail


_current: ContextVar[Captured | None] = ContextVar("checkspec_captured", default=None)


class _Writer(io.TextIOBase):
    """A text stream that writes to the current scenario's buffer, else to `fallback`."""

    def __init__(self, fallback: TextIO) -> None:
        self._fallback = fallback

    def write(self, text: str) -> int:
        captured = _current.get()
        if captured is None:
            return self._fallback.write(text)
        captured.write(str(text))
        return len(text)

    def flush(self) -> None:
        if _current.get() is None:
            self._fallback.flush()

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self._fallback.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._fallback, "encoding", "utf-8")


def install() -> None:
    """Route sys.stdout and sys.stderr through the per-scenario writers."""
    sys.stdout = _Writer(sys.stdout)
    sys.stderr = _Writer(sys.stderr)


@contextmanager
def installed() -> Iterator[None]:
    """`install()` for a while (the in-process executor), then the streams as they were."""
    saved = sys.stdout, sys.stderr
    install()
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


@contextmanager
def capturing() -> Iterator[Captured]:
    """Everything printed in this context (and tasks/threads started from it)."""
    captured = Captured()
    token = _current.set(captured)
    try:
        yield captured
    finally:
        _current.reset(token)
