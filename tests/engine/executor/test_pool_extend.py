"""The parent's side of a held loop (engine/executor/pool.py): an `extend` message moves
the deadline of the scenario it names, and a moved start never hides an older one that is
past its deadline (the heap of starts keeps the stale entry until it reaches the top).
The worker's side: test_loopwatch.py."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

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
