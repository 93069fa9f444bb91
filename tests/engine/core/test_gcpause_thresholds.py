"""The collector's pauses (engine/core/gcpause.py): a big allocation frozen out of sight, a
small one left alone; the youngest generation's threshold raised while scenarios start
and put back when the loop next runs (unless changed meanwhile, or outside a loop, or
already high); each collection logged as `generation milliseconds` for the benchmarks.
Each test puts the collector back as it found it."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from checkspec.engine.core import gcpause


@pytest.fixture(autouse=True)
def collector_as_found() -> Iterator[None]:
    thresholds, enabled = gc.get_threshold(), gc.isenabled()
    gc.enable()  # as a process starts
    yield
    gc.set_threshold(*thresholds)
    gc.unfreeze()
    gcpause.freeze_bulk(False)
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_settle_freezes_only_a_big_allocation() -> None:
    gc.unfreeze()
    before = gc.get_freeze_count()
    assert gcpause.settle(threshold=10**12) is False
    assert gc.get_freeze_count() == before
    gc.disable()  # no collection between the allocation and the count
    held = [[n] for n in range(5000)]  # young containers, alive
    assert gcpause.settle(threshold=len(held)) is True
    assert gc.get_freeze_count() >= len(held)


def test_a_paused_bulk_allocation_is_frozen_when_asked() -> None:
    gcpause.freeze_bulk(True)
    gc.unfreeze()
    with gcpause.gc_paused():
        assert not gc.isenabled()
        held = [[n] for n in range(gcpause.SETTLE_OBJECTS + 1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(held)


def test_the_threshold_is_raised_while_scenarios_start_and_put_back_after() -> None:
    gc.set_threshold(700, 10, 10)
    seen: list[tuple[int, ...]] = []

    async def start() -> None:
        gcpause.running_scenarios()
        seen.append(gc.get_threshold())
        gcpause.running_scenarios()  # already raised: nothing more
        await asyncio.sleep(0)  # the loop runs its queue
        seen.append(gc.get_threshold())

    asyncio.run(start())
    assert seen == [(gcpause.RUN_THRESHOLD, 10, 10), (700, 10, 10)]


def test_a_threshold_changed_meanwhile_is_left_as_set() -> None:
    gc.set_threshold(700, 10, 10)

    async def start() -> tuple[int, ...]:
        gcpause.running_scenarios()
        gc.set_threshold(2000, 10, 10)  # someone else's choice
        await asyncio.sleep(0)
        return gc.get_threshold()

    assert asyncio.run(start()) == (2000, 10, 10)


def test_nothing_changes_outside_a_loop_or_with_a_high_threshold() -> None:
    gc.set_threshold(700, 10, 10)
    gcpause.running_scenarios()  # no running loop
    assert gc.get_threshold() == (700, 10, 10)
    gc.set_threshold(50_000, 10, 10)

    async def start() -> tuple[int, ...]:
        gcpause.running_scenarios()
        return gc.get_threshold()

    assert asyncio.run(start()) == (50_000, 10, 10)


def test_each_collection_is_logged_with_its_generation_and_duration(tmp_path: Path) -> None:
    log = tmp_path / "gc.log"
    callbacks = list(gc.callbacks)
    gcpause.log_pauses(str(log))
    try:
        gc.collect(1)
        gc.collect(2)
    finally:
        gc.callbacks[:] = callbacks
    lines = log.read_text().splitlines()
    assert [line.split()[0] for line in lines[-2:]] == ["1", "2"]
    assert all(float(line.split()[1]) >= 0 for line in lines)
