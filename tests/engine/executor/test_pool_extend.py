"""The parent's side of a held loop (engine/executor/pool.py): an `extend` message moves
the deadline of the scenario it names, and a moved start never hides an older one that is
past its deadline (the heap of starts keeps the stale entry until it reaches the top)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from checkspec.engine.executor.jobs import Job
from checkspec.engine.executor.pool import WorkerPool, _Queued, _Running, _Stream, _Worker


def _running(key: int, started: float) -> _Running:
    scenario: Any = SimpleNamespace(name=f"s{key}")
    return _Running(_Queued(Job(key, scenario)), started=started)


def test_an_extend_moves_one_start_and_the_next_deadline_is_still_the_oldest() -> None:
    pool = WorkerPool(size=1)
    stream = _Stream()
    proc: Any = SimpleNamespace(pid=0, returncode=None)
    worker = _Worker(proc, stream=stream)
    first, second = _running(1, 100.0), _running(2, 101.0)
    worker.inflight = {1: first, 2: second}
    stream.started(worker, first)
    stream.started(worker, second)

    assert pool._on_messages(worker, [("extend", 1, 5.0)]) == []  # noqa: SLF001
    assert first.started == 105.0
    assert stream.oldest_start() == 101.0  # the second, not the first's old entry
    assert pool._on_messages(worker, [("extend", 2, 10.0)]) == []  # noqa: SLF001
    assert stream.oldest_start() == 105.0

    # One the worker no longer runs (or never announced) is left alone.
    assert pool._on_messages(worker, [("extend", 3, 5.0)]) == []  # noqa: SLF001
    assert [r.started for r in worker.inflight.values()] == [105.0, 111.0]


def test_no_loop_held_is_raised_halfway_through_a_frame_to_the_parent() -> None:
    """The handler runs between two bytecodes of the main thread: one raised inside
    Worker.send_now would leave half a frame on the pipe. It waits for the next signal."""
    import time

    from checkspec.engine.executor.loopwatch import SIGNAL, LoopHeld, LoopWatch

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
