"""Stopping an analysis that is no longer wanted, between two scenarios or rows.

The language server analyses a big document in a worker thread; an edit made meanwhile
makes that analysis stale. The analysis calls `checkpoint()` once per scenario or row:
outside `cancellable` (the CLI, the tests, the server's small documents) it does nothing;
inside, it raises `Cancelled` once the given flag is set. `Cancelled` is a BaseException,
so the analysis's own guards (`except Exception`: a fallback to a fresh analysis, a
failure shown as a problem) let it through; nothing is committed before the last
checkpoint of a re-read (incremental.py), so a cancelled analysis leaves the previous one
usable.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Cancelled(BaseException):
    """The analysis was superseded (`cancellable`'s flag was set)."""


_local = threading.local()


def checkpoint() -> None:
    flag: threading.Event | None = getattr(_local, "flag", None)
    if flag is not None and flag.is_set():
        raise Cancelled


@contextmanager
def cancellable(flag: threading.Event) -> Iterator[None]:
    """Analyses in this thread, inside the block, stop at a checkpoint once `flag` is set."""
    previous = getattr(_local, "flag", None)
    _local.flag = flag
    try:
        yield
    finally:
        _local.flag = previous
