"""The local Ray cluster a run starts (`--executor ray` without an address) ends with the
run, however the run ends (issue 31): no Ray process of it is left running. (A run
stopped by SIGTERM shuts Ray down as any run does: test_faults_signals covers the signal.)"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.ray_cluster import ENV, _of_cluster, cluster_temp

pytest.importorskip("ray")

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]

AGENT = """
import os, time
from pathlib import Path

def ok(question):
    return "ok"

def hangs(question):
    # The code runs from Ray's copy of the project: the marker goes where the test looks.
    (Path(os.environ["CHECKSPEC_TEST_MARKERS"]) / f"started-{os.getpid()}").write_text("")
    time.sleep(3600)
"""

SUITE = """
name: ray faults
scenarios:
  - name: passes
    target: python:agent:ok
    steps:
      - interacts: [{inputs: hello}]
        checks: [{kind: string_matching, keyword: ok}]
  - name: hangs
    target: python:agent:hangs
    steps:
      - interacts: [{inputs: hello}]
        checks: [{kind: string_matching, keyword: ok}]
"""


@pytest.fixture
def ray_temp() -> Iterator[str]:
    # This test's own: only its cluster is looked at, whatever other Ray runs here.
    with cluster_temp() as temp:
        yield temp


def of_cluster(temp: str) -> set[int]:
    return {
        int(proc.name)
        for proc in Path("/proc").iterdir()
        if proc.name.isdigit() and int(proc.name) != os.getpid() and _of_cluster(proc, temp)
    }


def start(project: Path, temp: str, *extra: str) -> subprocess.Popen[str]:
    (project / "agent.py").write_text(AGENT)
    (project / "ray.suite.yaml").write_text(SUITE.lstrip())
    process = subprocess.Popen(
        [*CLI, "run", "ray.suite.yaml", "--executor", "ray", *extra],
        cwd=project,
        env={**ENV, "RAY_TMPDIR": temp, "CHECKSPEC_TEST_MARKERS": str(project)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not list(project.glob("started-*")):
        assert time.monotonic() < deadline, "the hanging scenario never started"
        assert process.poll() is None, process.communicate()
        time.sleep(0.1)
    return process


def assert_none_left(temp: str, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while left := of_cluster(temp):
        assert time.monotonic() < deadline, f"Ray processes of the run still alive: {left}"
        time.sleep(0.2)


def test_a_killed_ray_run_takes_its_local_cluster_with_it(tmp_path: Path, ray_temp: str) -> None:
    process = start(tmp_path, ray_temp)
    assert of_cluster(ray_temp)
    process.kill()
    process.communicate(timeout=30)
    assert_none_left(ray_temp)
