"""User code off the event loop, a thread per call (engine/core/user_thread.py)."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from checkspec.engine.core.user_thread import in_own_thread

WHO = contextvars.ContextVar("WHO", default="nobody")


def test_the_call_sees_the_callers_context_and_its_errors_come_back() -> None:
    async def main() -> None:
        WHO.set("run 1")
        assert await in_own_thread(WHO.get) == "run 1"
        assert await in_own_thread(threading.get_ident) != threading.get_ident()
        with pytest.raises(KeyError, match="missing"):
            await in_own_thread({}.__getitem__, "missing")

    asyncio.run(main())


def test_calls_that_never_return_leave_the_next_one_a_thread() -> None:
    """With asyncio.to_thread's pool (cores + 4 threads), 40 hung calls would hold every
    thread and this last call would wait behind them for good."""
    release = threading.Event()

    async def main() -> str:
        hung = [asyncio.ensure_future(in_own_thread(release.wait)) for _ in range(40)]
        await asyncio.sleep(0)
        try:
            return await asyncio.wait_for(in_own_thread(lambda: "answered"), 10)
        finally:
            for task in hung:
                task.cancel()

    try:
        assert asyncio.run(main()) == "answered"
    finally:
        release.set()  # the abandoned threads end; their results are dropped


def test_a_result_after_its_waiter_gave_up_is_dropped() -> None:
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait(10)
        return "late"

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(in_own_thread(slow), 0.05)
        assert started.wait(10)
        release.set()
        await asyncio.sleep(0.05)  # the late result arrives on a done future: no error

    asyncio.run(main())
