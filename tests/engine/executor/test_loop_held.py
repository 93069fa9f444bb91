"""An `async def` check or target that holds a worker's event loop past its deadline is
stopped inside the worker (engine/executor/loopwatch.py, issue 36 item 2): it ends as
ERROR after one timeout, the scenarios it held up finish in the same worker, not re-run,
and the worker is not killed.

Each test runs `checkspec run` as a real process with one worker and a short
`--scenario-timeout`, and reads the report: statuses, endings, re-run marks, which
process ran what. No timing is asserted.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from checkspec.engine.cli.main import main
from checkspec.engine.executor.loopwatch import SIGNAL
from tests.support.processes import CHECKS, CLI, write
from tests.support.spec_texts import agent_scenario as scenario

AGENT = """
import asyncio, os, time
from pathlib import Path

HERE = Path(__file__).parent

def called(name):
    (HERE / f"called-{name}-{os.getpid()}").write_text("")

def slow_ok(question):
    called(question)
    time.sleep(0.3)  # in its own thread: done while the stuck one holds the loop
    return "ok"

async def needs_the_loop(question):
    called(question)
    await asyncio.sleep(0.05)  # due while the stuck one holds the loop
    await asyncio.sleep(1.2)  # past its first deadline: it needs the time it was held
    return "ok"

def ok(question):
    called(question)
    return "ok"

def takes_a_while(question):
    called(question)
    time.sleep(1.5)  # in its own thread: the next scenario starts 1.5 s after the first
    return "ok"

async def sleeps_on_loop(question):
    called(question)
    try:
        time.sleep(60)  # holds the worker's event loop
    except BaseException:
        stopped()
        raise
    return "ok"

async def polls(question):
    called(question)
    while not (HERE / "go").exists():
        await asyncio.sleep(0.02)
    return "ok"

def stopped():
    # Only a worker that stops the scenario itself (not its parent's kill) gets here.
    (HERE / f"stopped-{os.getpid()}").write_text("")
"""

LOOP_CHECKS = """
import os, time
from pathlib import Path
from agent import stopped

HERE = Path(__file__).parent

async def sleeps_on_loop(trace):
    try:
        time.sleep(60)  # holds the worker's event loop
    except BaseException:
        stopped()
        raise
    return True

async def holds_the_loop_until_go(trace):
    (HERE / f"holding-{os.getpid()}").write_text("")
    while not (HERE / "go").exists():
        time.sleep(0.02)  # on the worker's event loop, well within its time
    return True

async def holds_the_loop_within_its_time(trace):
    time.sleep(2)  # holds the worker's event loop, but ends a second before its deadline
    return True
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, "agent.py", AGENT)
    write(tmp_path, "checks_here.py", CHECKS)
    write(tmp_path, "loop_checks.py", LOOP_CHECKS)
    return tmp_path


def run_suite(
    project: Path, timeout: int, *scenarios: str, code: int = 1, concurrency: int = 8
) -> list[dict[str, object]]:
    write(project, "s.suite.yaml", "name: held\nscenarios:\n" + "".join(scenarios))
    done = subprocess.run(
        [*CLI, "run", "s.suite.yaml", "--jobs", "1", "--scenario-timeout", str(timeout),
         "--concurrency", str(concurrency), "--format", "json", "-o", "r.json",
         "--no-history"],
        cwd=project, capture_output=True, text=True, timeout=90,
    )  # fmt: skip
    assert done.returncode == code, done.stderr
    assert "re-run" not in done.stderr
    report = json.loads((project / "r.json").read_text())
    return report["scenarios"]  # type: ignore[no-any-return]


def pids(project: Path, pattern: str) -> dict[str, int]:
    """The process that ran each call (called-<name>-<pid>, stopped-<pid>)."""
    return {p.name.rsplit("-", 1)[0]: int(p.name.rsplit("-", 1)[1]) for p in project.glob(pattern)}


def assert_stopped_after_one_timeout(stuck: dict[str, object], timeout: int) -> None:
    assert stuck["status"] == "error" and stuck["ending"] == "timeout"
    assert stuck.get("rerun") is None
    steps = stuck["steps"]
    assert isinstance(steps, list)
    assert steps[0]["error"]["message"] == f"did not finish within {timeout} s (stopped)"


def test_an_async_check_sleeping_on_the_loop_is_stopped_in_its_worker(project: Path) -> None:
    good, stuck = run_suite(
        project,
        1,
        scenario("good", "slow_ok"),
        scenario("stuck", "ok", '{kind: fn, fn: "loop_checks:sleeps_on_loop"}'),
    )
    assert good["status"] == "pass" and good["ending"] == "finished"
    assert good.get("rerun") is None
    assert_stopped_after_one_timeout(stuck, 1)
    calls, stops = pids(project, "called-*"), pids(project, "stopped-*")
    # Each ran once, in one worker, and that worker stopped the stuck check itself.
    assert set(calls) == {"called-good", "called-stuck"}
    assert calls["called-good"] == calls["called-stuck"] == stops["stopped"]


def test_an_async_target_sleeping_on_the_loop_leaves_its_neighbour_the_time_it_held(
    project: Path,
) -> None:
    # The good scenario waits for the loop the stuck one holds: it gets the time back
    # (here and in the parent), so it finishes past its first deadline, not re-run.
    # 3 s: `good` gets back the time from when `stuck` took the loop (after its imports,
    # slow under load) to its deadline; its own 1.25 s must fit in what is left.
    good, stuck = run_suite(
        project, 3, scenario("good", "needs_the_loop"), scenario("stuck", "sleeps_on_loop")
    )
    assert good["status"] == "pass" and good["ending"] == "finished", good
    assert good.get("rerun") is None
    assert_stopped_after_one_timeout(stuck, 3)
    calls, stops = pids(project, "called-*"), pids(project, "stopped-*")
    assert set(calls) == {"called-good", "called-stuck"}
    assert calls["called-good"] == calls["called-stuck"] == stops["stopped"]


def test_an_async_check_spinning_on_the_loop_is_stopped_in_its_worker(project: Path) -> None:
    # 3 s, as above: `stuck` imports its check module inside its deadline before it spins.
    good, stuck = run_suite(
        project,
        3,
        scenario("good", "needs_the_loop"),
        scenario("stuck", "ok", '{kind: fn, fn: "checks_here:spin_on_loop"}'),
    )
    assert good["status"] == "pass" and good.get("rerun") is None, good
    assert_stopped_after_one_timeout(stuck, 3)
    calls = pids(project, "called-*")
    assert set(calls) == {"called-good", "called-stuck"}
    assert calls["called-good"] == calls["called-stuck"]


def test_a_scenario_held_up_by_one_within_its_time_gets_that_time_back(project: Path) -> None:
    # Two at a time: `waiting` and `first` start together, `holder` 1.5 s later, when
    # `first` ends. `holder` holds the loop for 2 s, within its 3 s: `waiting` passes its
    # own deadline (and the parent's) meanwhile, unable to run. Neither is stopped, both
    # finish, not re-run.
    waiting, first, holder = run_suite(
        project,
        3,
        scenario("waiting", "needs_the_loop"),
        scenario("first", "takes_a_while"),
        scenario("holder", "ok", '{kind: fn, fn: "loop_checks:holds_the_loop_within_its_time"}'),
        code=0,
        concurrency=2,
    )
    for result in (waiting, first, holder):
        assert result["status"] == "pass" and result["ending"] == "finished", result
        assert result.get("rerun") is None
    assert set(pids(project, "called-*")) == {"called-waiting", "called-first", "called-holder"}


def test_a_scenario_started_well_before_the_stuck_one_is_not_killed_for_it(
    project: Path,
) -> None:
    # `waiting` starts 1.5 s before `stuck`, so its deadline (and the parent's, half a
    # second later) passes while `stuck` still holds the loop within its own time. The
    # parent hears of that while the loop is held: it does not kill the worker.
    waiting, first, stuck = run_suite(
        project,
        2,
        scenario("waiting", "needs_the_loop"),
        scenario("first", "takes_a_while"),
        scenario("stuck", "sleeps_on_loop"),
        concurrency=2,
    )
    for result in (waiting, first):
        assert result["status"] == "pass" and result["ending"] == "finished", result
        assert result.get("rerun") is None
    assert_stopped_after_one_timeout(stuck, 2)
    calls, stops = pids(project, "called-*"), pids(project, "stopped-*")
    assert set(calls) == {"called-waiting", "called-first", "called-stuck"}
    assert calls["called-waiting"] == calls["called-stuck"] == stops["stopped"]


@pytest.mark.skipif(SIGNAL is None, reason="no such signal on this platform")
def test_the_signal_changes_nothing_for_code_within_its_time_or_of_no_job(
    project: Path,
) -> None:
    # The worker's handler is installed (the default action would end the worker), and
    # finds a job within its time holding the loop (`holder`), or the loop idle between
    # `poller`'s turns: it raises nothing, both finish, once.
    write(
        project,
        "s.suite.yaml",
        "name: held\nscenarios:\n"
        + scenario("poller", "polls")
        + scenario("holder", "ok", '{kind: fn, fn: "loop_checks:holds_the_loop_until_go"}'),
    )
    process = subprocess.Popen(
        [*CLI, "run", "s.suite.yaml", "--jobs", "1", "--scenario-timeout", "60",
         "--format", "json", "-o", "r.json", "--no-history"],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not (holding := list(project.glob("holding-*"))):
            assert time.monotonic() < deadline and process.poll() is None, process.communicate()
            time.sleep(0.02)
        pid = int(holding[0].name.split("-")[1])
        assert SIGNAL is not None
        os.kill(pid, SIGNAL)  # while the loop has just been taken
        time.sleep(0.5)  # no event says the loop has been held for a while: wait for it
        os.kill(pid, SIGNAL)
        os.kill(pid, SIGNAL)
    finally:
        (project / "go").write_text("")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    report = json.loads((project / "r.json").read_text())
    for result in report["scenarios"]:
        assert result["status"] == "pass" and result["ending"] == "finished", result
        assert result.get("rerun") is None
    assert pids(project, "called-*") == {"called-poller": pid, "called-holder": pid}


@pytest.mark.skipif(SIGNAL is None, reason="no such signal on this platform")
def test_the_cli_process_installs_no_handler(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only worker processes watch their loop: the CLI's own (and the language server's,
    # which runs scenarios in the same pool) keeps the signal's default.
    write(project, "s.suite.yaml", "name: s\nscenarios:\n" + scenario("good", "ok"))
    monkeypatch.chdir(project)
    assert SIGNAL is not None
    before = signal.getsignal(SIGNAL)
    assert main(["run", "s.suite.yaml", "--jobs", "1", "--no-history", "-o", "r.json"]) == 0
    assert signal.getsignal(SIGNAL) is before
    assert pids(project, "called-*")["called-good"] != os.getpid()
