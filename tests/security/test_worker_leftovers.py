"""No process of a run outlives `checkspec run` (issue 48 item 10), whatever user code does
with signals and processes: a scenario installing its own slow SIGUSR2 handler (the
signal the worker's loop watch uses) left workers running after the run ended.

The targets here install such a handler, start a child that leaves the worker's process
group (`process_group=0`, which the pool's group kill misses), hold the loop past the
deadline or crash their worker (a worker gone before the run ends was never swept). After
the CLI exits, no process they recorded (workers, their children) may be alive."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from checkspec.engine.executor import leftovers, wire
from tests.support.processes import CLI, alive, wait_gone, write
from tests.support.spec_texts import agent_scenario as scenario

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the sweep reads /proc (Linux)"
)

AGENT = """
import asyncio, os, signal, subprocess, sys, time
from pathlib import Path

HERE = Path(__file__).parent


def slow_handler(signum, frame):
    time.sleep(30)  # what user code may do with the worker's SIGUSR2


def mark(kind, pid):
    (HERE / f"pid-{kind}-{pid}").write_text("")


def child():
    started = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)"], process_group=0
    )
    mark("child", started.pid)


async def holds_the_loop(question):
    signal.signal(signal.SIGUSR2, slow_handler)
    mark("worker", os.getpid())
    child()
    time.sleep(60)  # past its deadline, on the worker's event loop
    return "ok"


async def crashes(question):
    signal.signal(signal.SIGUSR2, slow_handler)
    mark("worker", os.getpid())
    child()
    os._exit(3)


async def finishes(question):
    signal.signal(signal.SIGUSR2, slow_handler)
    mark("worker", os.getpid())
    child()
    return "ok"
"""


def recorded(project: Path) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {"worker": set(), "child": set()}
    for path in project.glob("pid-*"):
        _, kind, pid = path.name.split("-")
        found[kind].add(int(pid))
    return found


def test_no_process_of_a_run_survives_the_cli(tmp_path: Path) -> None:
    write(tmp_path, "agent.py", AGENT)
    write(
        tmp_path,
        "s.suite.yaml",
        "name: leftovers\nscenarios:\n"
        + scenario("held", "holds_the_loop")
        + scenario("crashed", "crashes")
        + scenario("finished", "finishes"),
    )
    try:
        done = subprocess.run(
            [*CLI, "run", "s.suite.yaml", "--jobs", "2", "--concurrency", "2", "--scenario-timeout", "2",
             "--no-rerun", "--no-history"],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 1, done.stderr
        found = recorded(tmp_path)
        assert len(found["worker"]) >= 2 and len(found["child"]) == 3, found
        left = {pid for pids in found.values() for pid in pids if alive(pid)}
        assert not left, f"still running after the run: {left}"
    finally:
        wait_gone({pid for pids in recorded(tmp_path).values() for pid in pids})


def test_the_sweep_kills_only_what_carries_the_pools_mark() -> None:
    """A session id outlives its leader and may be reused: a process of a known session
    without the mark of this pool (`CHECKSPEC_WORKER_PARENT=<pid>`) is left alone."""
    sleep = [sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)"]
    # Environments of their own: what the test process holds (coverage's start-up, a
    # variable an earlier test left) must not decide whether they start.
    plain = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    marked = {**plain, wire.PARENT_VARIABLE: str(os.getpid())}
    stranger, ours = (
        subprocess.Popen(sleep, start_new_session=True, env=env, stdout=subprocess.PIPE, text=True)
        for env in (plain, marked)
    )
    try:
        # Both are running (not still starting, not dead at start) before the sweep looks.
        for child in (stranger, ours):
            assert child.stdout is not None and child.stdout.readline() == "up\n"
        killed = leftovers.sweep({stranger.pid, ours.pid})
        assert killed == [ours.pid]
        assert ours.wait(timeout=10) < 0 and stranger.poll() is None
    finally:
        stranger.kill()
        ours.kill()
        stranger.wait(timeout=10)
        ours.wait(timeout=10)
