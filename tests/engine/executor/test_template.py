"""Workers forked from the pool's template (engine/executor/template.py, forks.py): each
a child of the one template, in a session of its own, importing the user's modules
afresh; a template that dies takes its workers with it and the pool starts the next ones
the plain way; without a template (another platform, `template=False`) nothing changes."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from checkspec.engine.executor import forks
from checkspec.engine.executor.pool import CallFailed, WorkerPool
from tests.support import worker_calls

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def _command(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


async def test_workers_are_forked_from_one_template_and_import_user_code_afresh() -> None:
    pool = WorkerPool(size=1, template=True)
    try:
        first = await asyncio.wait_for(pool.call(worker_calls.family, None), 60)
        second = await asyncio.wait_for(pool.call(worker_calls.family, None), 60)
        assert first["pid"] != second["pid"]  # a call's worker is not reused
        assert first["ppid"] == second["ppid"] != os.getpid()  # one template forked both
        assert "checkspec.engine.executor.template" in _command(first["ppid"])
        assert first["sid"] == first["pid"]  # its own session: the pool kills it whole
        assert first["calls"] == second["calls"] == 1  # the module imported afresh each time
    finally:
        await pool.aclose()


async def test_a_killed_template_takes_its_workers_and_the_pool_goes_on(tmp_path: Path) -> None:
    pool = WorkerPool(size=1, template=True)
    try:
        marker = tmp_path / "pid"
        call = asyncio.ensure_future(pool.call(worker_calls.waits, str(marker)))
        for _ in range(600):
            if marker.exists() and marker.read_text():
                break
            await asyncio.sleep(0.05)
        template = _parent(int(marker.read_text()))
        assert "checkspec.engine.executor.template" in _command(template)
        os.kill(template, signal.SIGKILL)
        with pytest.raises(CallFailed, match="died"):
            await asyncio.wait_for(call, 60)
        after = await asyncio.wait_for(pool.call(worker_calls.family, None), 60)
        assert after["ppid"] == os.getpid()  # started the plain way from now on
    finally:
        await pool.aclose()


@pytest.mark.parametrize(
    ("size", "keep_warm", "template", "forked"),
    [
        (1, False, False, False),
        (2, False, None, False),
        (3, False, None, True),
        (1, True, None, True),
    ],
)
async def test_a_template_where_it_pays(
    size: int, keep_warm: bool, template: bool | None, forked: bool
) -> None:
    # Its start is a worker's: a pool of one or two workers gains nothing from it.
    pool = WorkerPool(size=size, keep_warm=keep_warm, template=template)
    try:
        answer = await asyncio.wait_for(pool.call(worker_calls.family, None), 60)
        assert (answer["ppid"] != os.getpid()) is forked
        assert answer["sid"] == answer["pid"]
    finally:
        await pool.aclose()


async def test_the_template_ends_with_the_pool() -> None:
    pool = WorkerPool(size=1, template=True)
    answer = await asyncio.wait_for(pool.call(worker_calls.family, None), 60)
    template = answer["ppid"]
    await pool.aclose()
    assert (
        not Path(f"/proc/{template}").exists()
        or "Z" in Path(f"/proc/{template}/stat").read_text().rsplit(")", 1)[1].split()[0]
    )


async def test_a_template_lost_while_a_worker_is_set_up_leaves_no_exit_to_wait_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The template dies after it forked and answered, before the pool holds the worker:
    # the worker died with it and no exit of it will come; the pool must not wait for one.
    env = {**os.environ, "CHECKSPEC_WORKER_PARENT": str(os.getpid())}
    template = await forks.Template.start(sys.executable, env)
    setting_up = forks._reader  # noqa: SLF001 - the step inside that window

    async def lost(loop: asyncio.AbstractEventLoop, fd: int, limit: int) -> asyncio.StreamReader:
        for pid in _our_templates():
            os.kill(pid, signal.SIGKILL)
        for _ in range(600):
            if template.gone:
                break
            await asyncio.sleep(0.01)
        return await setting_up(loop, fd, limit)

    monkeypatch.setattr(forks, "_reader", lost)
    try:
        worker = await asyncio.wait_for(template.fork(1 << 16), 30)
        assert template.gone
        assert worker.returncode == -signal.SIGKILL
    finally:
        await template.aclose()


def _our_templates() -> list[int]:
    """The template processes this test process started."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ours = _parent(int(entry.name)) == os.getpid()
            command = _command(int(entry.name)) if ours else ""
        except (OSError, IndexError, ValueError):  # gone meanwhile
            continue
        if "checkspec.engine.executor.template" in command:
            found.append(int(entry.name))
    return found
