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
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.support.processes import CHECKS, CLI, write

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

def takes_a_second(question):
    called(question)
    time.sleep(1)  # in its own thread: the next scenario starts a second after the first
    return "ok"

async def sleeps_on_loop(question):
    called(question)
    try:
        time.sleep(60)  # holds the worker's event loop
    except BaseException:
        stopped()
        raise
    return "ok"

def stopped():
    # Only a worker that stops the scenario itself (not its parent's kill) gets here.
    (HERE / f"stopped-{os.getpid()}").write_text("")
"""

LOOP_CHECKS = """
import time
from agent import stopped

async def sleeps_on_loop(trace):
    try:
        time.sleep(60)  # holds the worker's event loop
    except BaseException:
        stopped()
        raise
    return True

async def holds_the_loop_within_its_time(trace):
    time.sleep(2.5)  # holds the worker's event loop, but ends 0.5 s before its deadline
    return True
"""


def scenario(name: str, target: str, check: str = "{kind: string_matching, keyword: ok}") -> str:
    return textwrap.indent(
        textwrap.dedent(
            f"""\
            - name: {name}
              target: python:agent:{target}
              steps:
                - interacts: [{{inputs: {name}}}]
                  checks: [{check}]
            """
        ),
        "  ",
    )


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
    good, stuck = run_suite(
        project, 2, scenario("good", "needs_the_loop"), scenario("stuck", "sleeps_on_loop")
    )
    assert good["status"] == "pass" and good["ending"] == "finished"
    assert good.get("rerun") is None
    assert_stopped_after_one_timeout(stuck, 2)
    calls, stops = pids(project, "called-*"), pids(project, "stopped-*")
    assert set(calls) == {"called-good", "called-stuck"}
    assert calls["called-good"] == calls["called-stuck"] == stops["stopped"]


def test_an_async_check_spinning_on_the_loop_is_stopped_in_its_worker(project: Path) -> None:
    good, stuck = run_suite(
        project,
        2,
        scenario("good", "needs_the_loop"),
        scenario("stuck", "ok", '{kind: fn, fn: "checks_here:spin_on_loop"}'),
    )
    assert good["status"] == "pass" and good.get("rerun") is None
    assert_stopped_after_one_timeout(stuck, 2)
    calls = pids(project, "called-*")
    assert set(calls) == {"called-good", "called-stuck"}
    assert calls["called-good"] == calls["called-stuck"]


def test_a_scenario_held_up_by_one_within_its_time_gets_that_time_back(project: Path) -> None:
    # Two at a time: `waiting` and `first` start together, `holder` a second later, when
    # `first` ends. `holder` holds the loop for 2.5 s, within its 3 s: `waiting` passes its
    # own deadline meanwhile, unable to run. Neither is stopped, both finish, not re-run.
    waiting, first, holder = run_suite(
        project,
        3,
        scenario("waiting", "needs_the_loop"),
        scenario("first", "takes_a_second"),
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
    # `waiting` starts a second before `stuck`, so its deadline (and the parent's, half a
    # second later) passes while `stuck` still holds the loop within its own time. The
    # parent hears of that while the loop is held: it does not kill the worker.
    waiting, first, stuck = run_suite(
        project,
        2,
        scenario("waiting", "needs_the_loop"),
        scenario("first", "takes_a_second"),
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
