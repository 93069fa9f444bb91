"""The Ray executor against a real local Ray cluster (CPU only), started by the tests.

Same report as a local run; a crashing or hanging scenario errors alone and the run goes
on; an unreachable cluster is a usage error.
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from checkspec.engine import Scenario, StringMatching
from checkspec.engine.executor.jobs import Ending, Job, Outcome, RunOptions, not_run
from checkspec.engine.executor.ray_executor import RayExecutor
from checkspec.engine.settings import Settings
from tests.support.ray_cluster import ENV, _stop, cluster_temp

pytest.importorskip("ray")

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
RAY = str(Path(sys.executable).with_name("ray"))
# A throwaway local cluster: no token (concurrent test runs would overwrite ~/.ray/auth_token).

AGENT = """
import os, time

def answer(question):
    return "We offer a 30-day refund."

def chatty(question):
    print("said on a Ray worker")
    return "refund"

def exits(question):
    os._exit(4)

def hangs(question):
    time.sleep(3600)
"""


def suite(*targets: str) -> str:
    parts = ["name: ray", "scenarios:"]
    for i, target in enumerate(targets):
        parts += [
            f"  - name: s{i} {target}",
            f"    target: python:agent:{target}",
            "    steps:",
            "      - interacts: [{inputs: What is your refund policy?}]",
            "        checks: [{kind: string_matching, keyword: refund}]",
        ]
    return "\n".join(parts) + "\n"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with cluster_temp() as temp:
        port = free_port()
        started = subprocess.run(
            [
                RAY, "start", "--head", f"--port={port}", "--num-cpus=2",
                "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}",
            ],
            capture_output=True,
            text=True,
            env=ENV,
            timeout=180,
        )  # fmt: skip
        assert started.returncode == 0, started.stderr
        yield f"127.0.0.1:{port}"


def test_stopping_the_cluster_leaves_no_worker(tmp_path: Path) -> None:
    # Stand-ins for renamed processes: their command lines do not name the folder.
    folder = tmp_path / "session" / "working_dir"
    folder.mkdir(parents=True)
    sleep = [sys.executable, "-c", "import time; time.sleep(60)"]
    worker = subprocess.Popen(sleep, cwd=folder)
    with (tmp_path / "agent.log").open("w") as log:
        agent = subprocess.Popen(sleep, stdout=log)
    try:
        _stop(tmp_path)
        assert worker.wait(timeout=10) == agent.wait(timeout=10) == -signal.SIGKILL
    finally:
        worker.kill()
        agent.kill()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "checkspec.yaml").write_text("scenario_timeout: 5\n")
    (tmp_path / "suites").mkdir()
    (tmp_path / "agent.py").write_text(AGENT)
    return tmp_path


def run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "run", *args], cwd=project, capture_output=True, text=True, env=ENV, timeout=300
    )


def comparable(report: dict[str, object]) -> list[tuple[str, str, list[str]]]:
    return [
        (s["id"], s["status"], [r["status"] for step in s["steps"] for r in step["results"]])  # type: ignore[index]
        for s in report["scenarios"]  # type: ignore[attr-defined]
    ]


def test_a_ray_run_gives_the_report_of_a_local_run(project: Path, cluster: str) -> None:
    # The spec file is in a subfolder: the agent is found through the workspace root,
    # which reaches the Ray workers as their working_dir.
    (project / "suites" / "r.suite.yaml").write_text(suite("answer", "chatty", "answer"))
    local = run(project, "suites", "--format", "json")
    remote = run(
        project, "suites", "--format", "json", "--executor", "ray", "--ray-address", cluster
    )
    assert remote.returncode == local.returncode == 0, remote.stderr
    ours, theirs = json.loads(local.stdout), json.loads(remote.stdout)
    assert comparable(theirs) == comparable(ours)
    assert theirs["summary"] == ours["summary"]
    assert "said on a Ray worker" in theirs["scenarios"][1]["output"]


def ray_statuses(report: dict[str, Any]) -> tuple[list[str], list[list[str | None]]]:
    why = [
        [(st.get("error") or {}).get("message") for st in s["steps"]] for s in report["scenarios"]
    ]
    return [s["status"] for s in report["scenarios"]], why


def test_a_lost_task_errors_its_scenario_and_the_run_goes_on(project: Path, cluster: str) -> None:
    # The deadline covers a fresh Ray worker's imports (a lost task's unseen scenarios are
    # timed from its submission): room for a loaded machine. Nothing here waits it out.
    (project / "checkspec.yaml").write_text("scenario_timeout: 30\n")
    (project / "suites" / "f.suite.yaml").write_text(suite("answer", "exits", "answer"))
    done = run(project, "suites", "--format", "json", "--executor", "ray", "--ray-address", cluster)
    assert done.returncode == 1
    report = json.loads(done.stdout)
    statuses, why = ray_statuses(report)
    assert statuses == ["pass", "error", "pass"], why
    crashed = report["scenarios"][1]["steps"][0]["error"]["message"]
    assert "the Ray task running this scenario was lost" in crashed


def test_a_stuck_scenario_is_stopped_at_its_deadline_and_the_run_goes_on(
    project: Path, cluster: str
) -> None:
    # Timed from its start in the worker (its imports done): the other scenarios of the
    # batch finish well within 5 s, as in test_a_ray_run_gives_the_report_of_a_local_run.
    (project / "suites" / "h.suite.yaml").write_text(suite("answer", "hangs", "answer"))
    started = time.monotonic()
    done = run(project, "suites", "--format", "json", "--executor", "ray", "--ray-address", cluster)
    assert done.returncode == 1
    report = json.loads(done.stdout)
    statuses, why = ray_statuses(report)
    assert statuses == ["pass", "error", "pass"], why
    stuck = report["scenarios"][1]["steps"][0]["error"]["message"]
    assert stuck == "did not finish within 5 s (stopped)"
    assert time.monotonic() - started < 240  # bounded: the hung scenario did not hang the run


def test_an_unreachable_cluster_is_a_usage_error(project: Path) -> None:
    (project / "suites" / "r.suite.yaml").write_text(suite("answer"))
    done = run(project, "suites", "--executor", "ray", "--ray-address", f"127.0.0.1:{free_port()}")
    assert done.returncode == 2
    assert "cannot reach the Ray cluster at 127.0.0.1:" in done.stderr
    assert "Connection refused" in done.stderr


def test_provider_limits_hold_across_the_cluster(project: Path, cluster: str) -> None:
    from tests.support.openai_stub import SlowVerdicts, judged_suite, running_stub

    (project / "checkspec.yaml").write_text("concurrency: 8\nmax_parallel_requests: 2\n")
    (project / "suites" / "j.suite.yaml").write_text(judged_suite(8, prefix="j"))
    slow = SlowVerdicts(0.3)

    with running_stub() as stub:
        stub.chat = slow
        env = {
            **ENV,
            "CHECKSPEC_API_BASE": stub.base_url,
            "CHECKSPEC_API_KEY": "sk-test",
            "CHECKSPEC_MODEL": "openai/judge",
        }
        done = subprocess.run(
            [
                *CLI,
                "run",
                "suites",
                "--format",
                "json",
                "--no-cache",
                "--executor",
                "ray",
                "--ray-address",
                cluster,
            ],
            cwd=project,
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
    assert done.returncode == 0, done.stdout[-3000:]
    assert len(stub.chat_requests) == 8
    assert slow.peak <= 2


def test_the_budget_holds_across_the_cluster(tmp_path: Path, cluster: str) -> None:
    """The run's limiter actor holds the account of every task (max_cost)."""
    from tests.support import budget
    from tests.support.openai_stub import SlowVerdicts, running_stub

    (tmp_path / "checkspec.yaml").write_text(budget.CONFIG)
    (tmp_path / "j.suite.yaml").write_text(budget.SUITE)
    with running_stub() as stub:
        stub.chat = SlowVerdicts(0.2)
        env = {**ENV, "CHECKSPEC_API_BASE": stub.base_url, "CHECKSPEC_API_KEY": "sk-test"}
        done = subprocess.run(
            [*CLI, "run", ".", *budget.ARGS, "--executor", "ray", "--ray-address", cluster],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
    budget.assert_budget_held(done.returncode, done.stdout, done.stderr, stub)


class _Scripted:
    """Stands in for the Ray remote function: each task runs its batch as scripted. A task
    with the crashing job dies, and only the start messages of `seen` jobs got out first
    (a dying task can take its last messages with it)."""

    def __init__(self, crashing: int, seen: set[int]) -> None:
        self.crashing, self.seen = crashing, seen
        self.tasks: list[list[int]] = []

    def remote(self, batch: list[Job], options: RunOptions, limiter: object, slots: int) -> Any:
        keys = [job.key for job in batch]
        self.tasks.append(keys)

        async def value(message: tuple[str, object]) -> list[tuple[str, object]]:
            return [message]  # a real task yields the messages of a few ms as one list

        async def task() -> Any:
            if self.crashing in keys:
                for key in keys:
                    if key in self.seen or len(keys) == 1:
                        yield value(("started", key))
                await asyncio.sleep(0)  # a real task's death takes a loop turn to arrive
                raise RuntimeError("The worker died unexpectedly")
            for found in batch:
                yield value(("started", found.key))
                result = not_run(found.scenario, "ran")
                yield value(("done", Outcome(found.key, result, "", Ending.FINISHED)))

        return task()


async def test_a_crash_is_blamed_on_its_job_even_when_its_start_message_was_lost() -> None:
    jobs = [
        Job(k, Scenario(f"s{k}").interact("q", "a").check(StringMatching(keyword="a")))
        for k in range(4)
    ]
    executor = RayExecutor(address=None, root=None)
    executor._remote = _Scripted(crashing=1, seen={0})  # noqa: SLF001 - the test's stand-in
    executor.slots = 4
    results: asyncio.Queue[Outcome | None] = asyncio.Queue()
    # (before: the suspects went out again as a batch, dying the same way for ever)
    consume = executor._consume(jobs, RunOptions(Settings()), results)  # noqa: SLF001
    await asyncio.wait_for(consume, 30)
    outcomes = {}
    while not results.empty():
        outcome = results.get_nowait()
        assert outcome is not None
        outcomes[outcome.key] = outcome
    endings = {key: outcomes[key].ending for key in sorted(outcomes)}
    assert endings == {
        0: Ending.FINISHED,  # seen starting when the task died, but innocent: run again alone
        1: Ending.CRASHED,
        2: Ending.FINISHED,
        3: Ending.FINISHED,
    }
    # the batch; 0 alone; the suspects 1-3 (dies again); then each of them alone
    assert executor._remote.tasks == [[0, 1, 2, 3], [1, 2, 3], [3], [2], [1], [0]]  # noqa: SLF001


def test_a_task_yields_the_messages_that_came_close_together_as_one_item() -> None:
    # Each item a streaming task yields is a Ray object: one per message cost a run of
    # thousands of scenarios most of its time.
    import queue
    import threading

    from checkspec.engine.executor.ray_executor import _gathered

    events: queue.Queue[tuple[str, Any] | None] = queue.Queue()
    for key in range(5):
        events.put(("started", key))

    def later() -> None:
        time.sleep(0.3)  # well past the gathering window: its own item
        events.put(("started", 5))
        events.put(None)

    threading.Thread(target=later).start()
    items = list(_gathered(events))
    assert items == [[("started", k) for k in range(5)], [("started", 5)]]


def test_capture_on_ray_workers(project: Path, cluster: str) -> None:
    """`capture: otel` in a Ray task's process: the openai SDK agent's tool call is read
    from its spans there (the stub's address reaches the workers in the working_dir)."""
    from tests.support.openai_stub import ToolCallingAnswers, running_stub
    from tests.support.tool_agent import AGENT as TOOL_AGENT

    (project / "ray_agent.py").write_text(
        TOOL_AGENT.replace(
            "client = OpenAI()",
            "client = OpenAI(base_url=open(__file__[:-3] + '.url').read(), api_key='k')",
        )
    )
    (project / "suites" / "tools.scenario.yaml").write_text(
        "name: tools\ntarget: python:ray_agent:answer\nsteps:\n"
        "  - interacts: [{inputs: A9}]\n"
        "    checks: [{kind: tool_called, tool: lookup_order, arguments: {order_id: A9}}]\n"
    )
    with running_stub() as stub:
        stub.chat = ToolCallingAnswers()
        (project / "ray_agent.url").write_text(stub.base_url)
        done = run(
            project, "suites", "--format", "json", "--capture", "otel",
            "--executor", "ray", "--ray-address", cluster,
            # A Ray worker's first import of the SDK and its instrumentation takes
            # seconds on a loaded machine: a bound on waiting, not a timing claim.
            "--scenario-timeout", "120",
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    scenario = json.loads(done.stdout)["scenarios"][0]
    assert scenario["final_trace"]["interactions"][0]["metadata"]["tools_called"] == [
        "lookup_order"
    ]
