"""Faults in worker processes, done for real (issue 31): a scenario past its deadline fails
alone, a worker that dies mid-run is never silent, and no worker outlives its parent.

Each test runs `checkspec run` (or a pool) as a real process, kills real processes, and
checks the report says what happened and no process is left running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.processes import CHECKS, CLI, wait_gone, write
from tests.support.spec_texts import agent_scenario as scenario

AGENT = """
import os, re, time
from pathlib import Path

HERE = Path(__file__).parent

def called(question):
    (HERE / f"called-{question}-{os.getpid()}-{time.monotonic_ns()}").write_text("")

def ok(question):
    called(question)
    return "ok"

def slow_ok(question):
    called(question)
    time.sleep(0.3)  # in the target's thread, while the stuck one holds its own
    return "ok"

def waits(question):
    # Says it was called (by whom), then waits for the test to let it finish.
    called(question)
    deadline = time.monotonic() + 60
    while not (HERE / "go").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return "ok"
"""


def suite(*scenarios: str) -> str:
    return "name: faults\nscenarios:\n" + "".join(scenarios)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, "agent.py", AGENT)
    write(tmp_path, "checks_here.py", CHECKS)
    return tmp_path


def run(project: Path, *args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], cwd=project, capture_output=True, text=True, timeout=timeout
    )


def wait_for(project: Path, pattern: str, count: int, process: subprocess.Popen[str]) -> list[Path]:
    deadline = time.monotonic() + 60
    while len(found := sorted(project.glob(pattern))) < count:
        assert time.monotonic() < deadline, f"never saw {count} {pattern}"
        assert process.poll() is None, process.communicate()
        time.sleep(0.02)
    return found


# 1. A deadline kills only what is late ---------------------------------------------------


def test_a_stuck_sync_check_fails_alone_and_its_neighbour_is_not_rerun(project: Path) -> None:
    # Both run in the one worker. The stuck check holds only its own thread (a sync check
    # runs off the event loop): the worker itself stops it at its deadline, the good
    # scenario's result is sent as soon as it is ready, and nothing is re-run.
    write(
        project,
        "stuck.suite.yaml",
        suite(
            scenario("good", "slow_ok"),
            scenario("stuck", "ok", '{kind: fn, fn: "checks_here:spin"}'),
        ),
    )
    done = run(
        # 3 s: the good scenario's 0.3 s sleep shares the GIL with the spinning check
        # (and, under make test, the tracer and two more test processes on two cores).
        project, "run", "stuck.suite.yaml", "--jobs", "1", "--scenario-timeout", "3",
        "--format", "json", "-o", "r.json",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    report = json.loads((project / "r.json").read_text())
    good, stuck = report["scenarios"]
    assert good["status"] == "pass" and good["ending"] == "finished"
    assert good.get("rerun") is None
    assert calls(project) == {"good": 1, "stuck": 1}  # each target called once: no re-run
    assert stuck["status"] == "error" and stuck["ending"] == "timeout"
    assert stuck.get("rerun") is None
    assert stuck["steps"][0]["error"]["message"] == "did not finish within 3 s (stopped)"
    assert "re-run" not in done.stderr


def test_a_c_call_holding_the_event_loop_fails_alone_and_its_neighbour_is_rerun_and_marked(
    project: Path,
) -> None:
    # Code that holds the worker's event loop itself inside one C call (an `async def`
    # backtracking in the regex engine), which no signal interrupts (loopwatch.py stops
    # Python code that holds it: tests/engine/executor/test_loop_held.py): the good
    # scenario's result cannot even be sent, both are past the deadline when the worker is
    # killed, so the good one runs again, marked.
    write(
        project,
        "stuck.suite.yaml",
        suite(
            scenario("good", "slow_ok"),
            scenario("stuck", "ok", '{kind: fn, fn: "checks_here:backtracks_on_loop"}'),
        ),
    )
    done = run(
        # 3 s: the good scenario's 0.3 s sleep shares the GIL with the spinning check
        # (and, under make test, the tracer and two more test processes on two cores).
        project, "run", "stuck.suite.yaml", "--jobs", "1", "--scenario-timeout", "3",
        "--format", "json", "-o", "r.json",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    report = json.loads((project / "r.json").read_text())
    good, stuck = report["scenarios"]
    assert good["status"] == "pass"
    assert good["rerun"] == "re-run: its worker was stopped for stuck"
    assert good["ending"] == "finished"
    assert good["duration_ms"] < 1000  # its own timing, not the stuck one's
    assert stuck["status"] == "error" and stuck["ending"] == "timeout"
    assert stuck["steps"][0]["error"]["message"] == "did not finish within 3 s (stopped)"
    assert "2 re-run" in done.stderr  # the summary line counts them

    # The same marks in the other formats (rebuilt from the JSON report).
    junit = run(project, "merge", "r.json", "--format", "junit").stdout
    assert '<property name="rerun" value="re-run: its worker was stopped for stuck" />' in junit
    text = run(project, "merge", "r.json").stdout
    assert "      re-run: its worker was stopped for stuck" in text
    assert "2 re-run (their worker process was stopped or died)" in text


def test_a_target_module_that_sleeps_at_import_fails_alone(project: Path) -> None:
    write(
        project, "sleepy.py", "import time\ntime.sleep(15)\n\ndef ok(question):\n    return 'ok'\n"
    )
    sleepy = scenario("sleepy", "ok").replace("python:agent:ok", "python:sleepy:ok")
    write(project, "import.suite.yaml", suite(scenario("good", "slow_ok"), sleepy))
    done = run(
        project, "run", "import.suite.yaml", "--jobs", "1", "--scenario-timeout", "1",
        "--format", "json",
    )  # fmt: skip
    good, late = json.loads(done.stdout)["scenarios"]
    # The import holds its own thread: the good scenario finishes, once, in that worker.
    assert good["status"] == "pass" and good.get("rerun") is None
    assert calls(project) == {"good": 1}
    assert late["status"] == "error" and late["ending"] == "timeout"
    assert late.get("rerun") is None
    assert late["steps"][0]["error"]["message"] == "did not finish within 1 s (stopped)"


# 2. A worker that dies mid-run: re-run once, marked, or ERROR; never silent -----------------


def _kill_worker_running_four(project: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    names = [f"s{i}" for i in range(4)]
    write(project, "four.suite.yaml", suite(*(scenario(name, "waits") for name in names)))
    process = subprocess.Popen(
        [*CLI, "run", "four.suite.yaml", "--jobs", "1", "--concurrency", "4", "--format",
         "json", "-o", "r.json", *extra],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    called = wait_for(project, "called-*", 4, process)
    pids = {int(path.name.split("-")[2]) for path in called}
    assert len(pids) == 1, "the four run in one worker"
    os.kill(pids.pop(), signal.SIGKILL)
    (project / "go").write_text("")
    out, err = process.communicate(timeout=90)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def calls(project: Path) -> dict[str, int]:
    found: dict[str, int] = {}
    for path in project.glob("called-*"):
        name = path.name.split("-")[1]
        found[name] = found.get(name, 0) + 1
    return found


def test_a_killed_worker_with_four_scenarios_reruns_each_once_and_says_so(project: Path) -> None:
    done = _kill_worker_running_four(project)
    assert done.returncode == 0, done.stderr
    report = json.loads((project / "r.json").read_text())
    assert [s["status"] for s in report["scenarios"]] == ["pass"] * 4
    assert {s["rerun"] for s in report["scenarios"]} == {"re-run after worker crash (signal 9)"}
    assert calls(project) == {f"s{i}": 2 for i in range(4)}  # once more each, no more
    assert "4 re-run" in done.stderr


def test_with_no_rerun_a_killed_worker_is_an_error_for_each_and_nothing_runs_twice(
    project: Path,
) -> None:
    done = _kill_worker_running_four(project, "--no-rerun")
    assert done.returncode == 1
    report = json.loads((project / "r.json").read_text())
    assert [s["status"] for s in report["scenarios"]] == ["error"] * 4
    for scenario_report in report["scenarios"]:
        message = scenario_report["steps"][0]["error"]["message"]
        assert "died (killed by signal SIGKILL)" in message
        assert "not re-run (rerun: false)" in message
        assert scenario_report["ending"] == "crashed" and scenario_report["rerun"] is None
    assert calls(project) == {f"s{i}": 1 for i in range(4)}


def test_rerun_false_in_checkspec_yaml_is_the_same_as_no_rerun(project: Path) -> None:
    write(project, "checkspec.yaml", "rerun: false\n")
    done = _kill_worker_running_four(project)
    assert done.returncode == 1
    assert calls(project) == {f"s{i}": 1 for i in range(4)}


# 3. No orphans ------------------------------------------------------------------------


def test_a_worker_inside_a_c_loop_dies_with_a_killed_run(project: Path) -> None:
    write(
        project,
        "regex.suite.yaml",
        suite(scenario("re", "ok", '{kind: fn, fn: "checks_here:backtracks"}')),
    )
    process = subprocess.Popen(
        [*CLI, "run", "regex.suite.yaml", "--jobs", "1"],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    (marker,) = wait_for(project, "regex-*", 1, process)
    worker = int(marker.name.split("-")[1])
    time.sleep(0.3)  # well inside the regex by now
    process.kill()  # no chance to clean up
    process.communicate(timeout=20)
    wait_gone({worker}, seconds=5)


POOL_PARENT = """
import asyncio, sys
from checkspec.engine import Scenario
from checkspec.engine.checks.fn import FnCheck
from checkspec.engine.executor import Job, RunOptions, WorkerPool

async def main():
    pool = WorkerPool(size=1, concurrency=1, keep_warm=True)  # as the language server keeps
    scenario = Scenario("re", target="python:agent:ok").interact("hello").check(
        FnCheck(fn="checks_here:backtracks")
    )
    async for outcome in pool.stream([Job(0, scenario.placed([sys.argv[1]]))], RunOptions()):
        print(outcome)

asyncio.run(main())
"""


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_a_warm_pools_workers_die_with_its_process(project: Path, how: signal.Signals) -> None:
    # Any process holding a pool (the language server does, with keep_warm) takes its
    # workers with it when it dies, even while they are stuck in C code.
    write(project, "parent.py", POOL_PARENT)
    process = subprocess.Popen(
        [sys.executable, "parent.py", str(project)],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    (marker,) = wait_for(project, "regex-*", 1, process)
    worker = int(marker.name.split("-")[1])
    time.sleep(0.3)
    process.send_signal(how)
    process.communicate(timeout=20)
    wait_gone({worker}, seconds=5)
