"""The loop watch's bookkeeping, driven in-process without its thread or signal
(engine/executor/loopwatch.py): the handler is called where a signal would run it."""

from __future__ import annotations

import asyncio
import contextvars
import time

import pytest

from checkspec.engine.executor.loopwatch import BEAT, SIGNAL, STALE, LoopHeld, LoopWatch


def test_a_signal_after_the_holder_was_stopped_keeps_the_others_time_back() -> None:
    # The job holding the loop is stopped; before the loop turns, the watchdog signals
    # again and finds no job's code. The others still get the hold back (the next beat
    # moves their deadlines): once, that late signal made the beat forget who held it,
    # and a scenario held up within its time was stopped in the worker.
    extended: list[dict[int, float]] = []

    async def run() -> tuple[float, float]:
        watch = LoopWatch(extended.append)
        watch._loop = asyncio.get_running_loop()  # noqa: SLF001 - as install() sets it

        async def stuck() -> None:
            async with asyncio.timeout(30) as deadline:
                with watch.watching(2, deadline):
                    time.sleep(STALE + 0.1)  # holds the loop
                    watch._on_signal(SIGNAL or 0, None)  # noqa: SLF001 - job 2 holds it
            watch._on_signal(SIGNAL or 0, None)  # noqa: SLF001 - job 2 is gone, no turn yet

        async with asyncio.timeout(30) as good:
            with watch.watching(1, good):
                before = good.when()
                assert before is not None
                # A job of its own, as the worker starts each (not inside job 1's context).
                await asyncio.create_task(stuck(), context=contextvars.Context())
                await asyncio.sleep(BEAT)  # the beat after the hold runs
                after = good.when()
                assert after is not None
                return before, after

    before, after = asyncio.run(run())
    [told] = extended
    assert set(told) == {1} and told[1] >= STALE + 0.1
    assert after - before >= STALE + 0.1


def test_a_signal_that_finds_no_job_holding_the_loop_gives_no_time_back() -> None:
    # The loop held by code of no job (the engine's own, between jobs): nobody is
    # credited, as before.
    extended: list[dict[int, float]] = []

    async def run() -> None:
        watch = LoopWatch(extended.append)
        watch._loop = asyncio.get_running_loop()  # noqa: SLF001

        async def engine_code() -> None:
            time.sleep(STALE + 0.1)  # holds the loop, outside any job
            watch._on_signal(SIGNAL or 0, None)  # noqa: SLF001

        async with asyncio.timeout(30) as good:
            with watch.watching(1, good):
                await asyncio.create_task(engine_code(), context=contextvars.Context())
                await asyncio.sleep(BEAT)

    asyncio.run(run())
    assert extended == []


def test_no_loop_held_is_raised_halfway_through_a_frame_to_the_parent() -> None:
    """The handler runs between two bytecodes of the main thread: one raised inside
    Worker.send_now would leave half a frame on the pipe. It waits for the next signal."""

    class Late:
        def when(self) -> float:
            return time.monotonic() - 1

    async def go() -> None:
        watch = LoopWatch(lambda extended: None)
        watch._loop = asyncio.get_running_loop()  # noqa: SLF001 - as install() sets it
        with watch.watching(7, Late()):  # type: ignore[arg-type]
            watch._last_turn = time.monotonic() - 5  # noqa: SLF001 - the loop is held
            watch.writing = True
            watch._on_signal(SIGNAL or 0, None)  # noqa: SLF001 - nothing raised
            watch.writing = False
            with pytest.raises(LoopHeld):
                watch._on_signal(SIGNAL or 0, None)  # noqa: SLF001

    asyncio.run(go())
