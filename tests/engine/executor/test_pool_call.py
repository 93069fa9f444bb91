"""A call in a worker of the pool (engine/executor/pool.py `WorkerPool.call`): one
function of ours, its argument a value, its events streamed back, its answer returned;
a raise or a dead worker is the call's failure (CallFailed), a cancel stops its worker
(CallCancelled), and the pool goes on serving afterwards."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from checkspec.engine.executor.pool import CallCancelled, CallFailed, StreamHandle, WorkerPool
from tests.support import worker_calls


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_call_answers_with_its_events_in_order() -> None:
    pool = WorkerPool(size=1)
    try:
        events: list[object] = []
        answer = await asyncio.wait_for(pool.call(worker_calls.counts, {"n": 3}, events.append), 60)
        assert events == [1, 2, 3]
        assert answer["given"] == {"n": 3}
        assert answer["pid"] != os.getpid()  # it ran in a worker process, not here
    finally:
        await pool.aclose()


async def test_what_the_function_raises_is_the_calls_failure() -> None:
    pool = WorkerPool(size=1)
    try:
        with pytest.raises(CallFailed, match="ValueError: no good: this"):
            await asyncio.wait_for(pool.call(worker_calls.raises, "this"), 60)
        with pytest.raises(CallFailed, match="cannot be sent back"):
            await asyncio.wait_for(pool.call(worker_calls.unsendable, None), 60)
    finally:
        await pool.aclose()


async def test_a_dead_worker_fails_the_call_and_the_pool_serves_the_next() -> None:
    pool = WorkerPool(size=1)
    try:
        events: list[object] = []
        with pytest.raises(CallFailed) as failed:
            await asyncio.wait_for(pool.call(worker_calls.exits, 3, events.append), 60)
        message = str(failed.value)
        assert "the worker process running it died (exit code 3)" in message
        assert "last words" in message
        assert events == ["leaving"]
        answer = await asyncio.wait_for(pool.call(worker_calls.counts, {"n": 1}), 60)
        assert answer["given"] == {"n": 1}
    finally:
        await pool.aclose()


async def test_cancelling_a_call_stops_its_worker(tmp_path: Path) -> None:
    pool = WorkerPool(size=1)
    try:
        handle = StreamHandle()
        marker = tmp_path / "pid"

        def on_event(value: object) -> None:
            if value == "waiting":
                handle.cancel()

        with pytest.raises(CallCancelled):
            await asyncio.wait_for(pool.call(worker_calls.waits, str(marker), on_event, handle), 60)
        pid = int(marker.read_text())
        for _ in range(600):
            if not _alive(pid):
                break
            await asyncio.sleep(0.05)
        assert not _alive(pid)
    finally:
        await pool.aclose()


async def test_a_call_waits_for_a_place_in_a_full_pool(tmp_path: Path) -> None:
    """A pool of one: a second call starts once the first is over, never beside it."""
    pool = WorkerPool(size=1)
    try:
        handle = StreamHandle()
        marker = tmp_path / "pid"
        first = asyncio.ensure_future(
            pool.call(worker_calls.waits, str(marker), lambda _: None, handle)
        )
        second = asyncio.ensure_future(pool.call(worker_calls.counts, {"n": 0}))
        for _ in range(1200):
            if marker.exists():
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        assert not second.done()
        handle.cancel()
        with pytest.raises(CallCancelled):
            await asyncio.wait_for(first, 60)
        answer = await asyncio.wait_for(second, 60)
        assert answer["pid"] != int(marker.read_text())
    finally:
        await pool.aclose()
