"""A worker that must start afresh (a call it abandoned may still run) retires only when
no job is running, counting a job whose start it has announced but not yet begun
(engine/executor/worker.py). Otherwise the parent, told the job started, saw its worker
die with exit code 0 and reported the job as crashed (a flaky server test under load)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from types import SimpleNamespace
from typing import Any

import pytest

from checkspec.engine.executor import worker as worker_module


class _Left(Exception):
    pass


async def test_a_job_announced_but_not_begun_keeps_a_tainted_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read_end, write_end = os.pipe()
    try:
        worker = worker_module.Worker(write_end)
        worker._slots = asyncio.Semaphore(2)  # noqa: SLF001 - the state serve() sets up
        worker._options = SimpleNamespace(scenario_timeout=5.0, settings=None)  # noqa: SLF001
        worker._run_gate = None  # noqa: SLF001 - no provider limits
        worker._tainted = True  # noqa: SLF001 - another scenario was stopped mid-way
        left: list[str] = []

        def leave() -> None:
            left.append("left")
            raise _Left

        monkeypatch.setattr(worker_module, "_leave", leave)
        sent = worker.send_now

        def send_now(messages: list[Any]) -> None:
            sent(messages)
            if ("started", 2) in messages:
                # Another job ends right now, between the announcement and the job's
                # next step: what its end does (core of `_run`'s last lines).
                with contextlib.suppress(_Left):
                    worker._retire_if_tainted()  # noqa: SLF001

        monkeypatch.setattr(worker, "send_now", send_now)
        began = asyncio.Event()
        finish = asyncio.Event()

        async def run(**_: Any) -> dict[str, str]:
            began.set()
            await finish.wait()
            return {"scenario": "b"}

        job = SimpleNamespace(key=2, scenario=SimpleNamespace(run=run), target=None, repeat=0)
        task = asyncio.create_task(worker._run(job))  # noqa: SLF001
        await asyncio.wait_for(began.wait(), 5)
        assert left == []  # it did not retire under the announced job
        finish.set()
        with pytest.raises(_Left):
            await asyncio.wait_for(task, 5)
        assert left == ["left"]  # with the job done, it retires
    finally:
        os.close(read_end)
        os.close(write_end)
