"""SIGTERM (a CI runner cancelling) and SIGHUP (a closed terminal) stop `checkspec run` as
Ctrl-C does: what finished is written in every report asked for, the last-failed record
is updated, the exit code is 128 + the signal, and no worker is left (issue 31)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.processes import CLI, alive, wait_gone, write

AGENT = """
import os, time
from pathlib import Path

HERE = Path(__file__).parent

def ok(question):
    return "ok"

def nope(question):
    return "nope"

def hangs(question):
    (HERE / f"started-{os.getpid()}-{time.monotonic_ns()}").write_text("")
    time.sleep(3600)
"""

SUITE = """
name: signals
scenarios:
  - name: passes
    target: python:agent:ok
    steps:
      - interacts: [{inputs: hello}]
        checks: [{kind: string_matching, keyword: ok}]
  - name: fails
    target: python:agent:nope
    steps:
      - interacts: [{inputs: hello}]
        checks: [{kind: string_matching, keyword: ok}]
  - name: hangs 1
    target: python:agent:hangs
    steps:
      - interacts: [{inputs: hello}]
        checks: [{kind: string_matching, keyword: ok}]
  - name: hangs 2
    target: python:agent:hangs
    steps:
      - interacts: [{inputs: hello}]
        checks: [{kind: string_matching, keyword: ok}]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, "agent.py", AGENT)
    write(tmp_path, "signals.suite.yaml", SUITE)
    return tmp_path


def start(project: Path, *extra: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [*CLI, "run", "signals.suite.yaml", "--jobs", "2", "--concurrency", "4", *extra],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while len(list(project.glob("started-*"))) < 2:  # both hanging scenarios run
        assert time.monotonic() < deadline, "the scenarios never started"
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    time.sleep(0.3)  # the quick ones are done by now
    return process


def workers(project: Path) -> set[int]:
    return {int(p.name.split("-")[1]) for p in project.glob("started-*")}


@pytest.mark.parametrize(("how", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_keeps_what_finished_in_every_report_and_the_last_failed_record(
    project: Path, how: signal.Signals, code: int
) -> None:
    process = start(project, "--format", "json", "-o", "out/r.json")
    process.send_signal(how)
    _out, err = process.communicate(timeout=30)
    assert process.returncode == code, err
    report = json.loads((project / "out/r.json").read_text())
    assert report["interrupted"] is True
    assert [s["status"] for s in report["scenarios"]] == ["pass", "fail", "skip", "skip"]
    assert report["scenarios"][2]["steps"][0]["skip_reason"] == "not run: the run was cancelled"
    record = json.loads((project / ".checkspec/lastfailed.json").read_text())
    assert record["failed"] == ["signals.suite.yaml::fails"]
    wait_gone(workers(project))


def test_sigterm_with_a_text_report_on_stdout(project: Path) -> None:
    process = start(project)
    process.send_signal(signal.SIGTERM)
    out, _err = process.communicate(timeout=30)
    assert process.returncode == 143
    assert "PASS  passes" in out and "FAIL  fails" in out
    assert "1 passed, 1 failed, 2 skipped" in out


def test_a_second_sigterm_stops_at_once(project: Path) -> None:
    process = start(project)
    process.send_signal(signal.SIGTERM)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=20)
    assert process.returncode == 143
    wait_gone(workers(project))
    assert not any(alive(pid) for pid in workers(project))


def test_sigterm_stops_a_watching_run_too(project: Path) -> None:
    process = start(project, "--watch")
    process.send_signal(signal.SIGTERM)
    _out, err = process.communicate(timeout=30)  # it does not go on watching
    assert process.returncode == 143, err
    wait_gone(workers(project))
