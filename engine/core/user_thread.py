"""Synchronous user code run off the event loop, each call in a thread of its own.

Not `asyncio.to_thread`: its pool has a handful of threads (cores + 4), and a call that
never returns keeps its thread for good. Ten hung targets would then leave no thread for
the next scenario's import or check, and healthy scenarios would wait behind them. A
thread per call costs tens of microseconds and cannot be starved; an abandoned one
(its scenario past its deadline) is a daemon, so it never keeps the process alive, and
its late result is dropped (docs/decisions.md, "Where user code runs").
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def _settle(future: asyncio.Future[Any], outcome: Any, failed: bool) -> None:
    if future.done():  # its waiter gave up (a deadline, a cancel): the outcome is dropped
        return
    if failed:
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


async def in_own_thread(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` in a new daemon thread, in a copy of the caller's context
    (the settings snapshot, the output capture, the search paths)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def work() -> None:
        outcome: Any
        try:
            outcome, failed = context.run(fn, *args, **kwargs), False
        except BaseException as exc:  # handed to the awaiting task, whatever it is
            outcome, failed = exc, True
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            loop.call_soon_threadsafe(_settle, future, outcome, failed)

    threading.Thread(target=work, name="checkspec-user-code", daemon=True).start()
    return await future
