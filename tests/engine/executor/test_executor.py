"""The executors on their own: real worker processes, real faults.

Every job yields exactly one outcome, whatever its code does; the blame for a dead worker
lands on the scenario that killed it.
"""

from __future__ import annotations

import asyncio
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest

from checkspec.engine import Scenario, StringMatching
from checkspec.engine.executor import (
    Ending,
    InProcessExecutor,
    Job,
    Outcome,
    RunOptions,
    WorkerPool,
    WorkerStartError,
    worker_python,
)
from checkspec.engine.executor.capture import Captured
from checkspec.engine.settings import Settings

AGENT = """
import os, signal, sys, threading, time

def ok(question):
    return "ok"

def exits(question):
    time.sleep(0.3)  # let the innocent scenarios of the same worker start too
    os._exit(5)

def killed(question):
    os.kill(os.getpid(), signal.SIGKILL)

def lock(question):
    return {"answer": "ok", "lock": threading.Lock()}

def floods(question):
    for i in range(200_000):
        print("line", i)
    return "ok"

def slow(question):
    time.sleep(0.5)
    return "ok"

def hangs(question):
    time.sleep(3600)
"""


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    (tmp_path / "exec_agent.py").write_text(textwrap.dedent(AGENT), encoding="utf-8")
    return tmp_path


def job(key: int, folder: Path, function: str, keyword: str = "ok") -> Job:
    scenario = (
        Scenario(f"{function} {key}", target=f"python:exec_agent:{function}")
        .interact("hello")
        .check(StringMatching(keyword=keyword))
    )
    return Job(key, scenario.placed([str(folder)]))


def collect(
    jobs: Sequence[Job], settings: Settings | None = None, **pool: object
) -> dict[int, Outcome]:
    async def main() -> dict[int, Outcome]:
        executor = WorkerPool(**{"size": 1, "concurrency": 4, **pool})  # type: ignore[arg-type]
        try:
            found = {}
            async for outcome in executor.stream(jobs, RunOptions(settings or Settings())):
                assert outcome.key not in found, "one outcome per job"
                found[outcome.key] = outcome
            return found
        finally:
            await executor.aclose()

    return asyncio.run(main())


def error_of(outcome: Outcome) -> str:
    return outcome.result.steps[0].error.message  # type: ignore[union-attr]


def test_a_crash_among_concurrent_scenarios_is_blamed_on_the_one_that_crashed(
    agent_dir: Path,
) -> None:
    jobs = [job(0, agent_dir, "slow"), job(1, agent_dir, "exits"), job(2, agent_dir, "slow")]
    found = collect(jobs, size=1, concurrency=3)
    assert [found[k].result.status.value for k in range(3)] == ["pass", "error", "pass"]
    assert found[1].ending is Ending.CRASHED
    assert "died (exit code 5)" in error_of(found[1])


def test_a_worker_killed_by_a_signal_says_which(agent_dir: Path) -> None:
    found = collect([job(0, agent_dir, "killed")])
    assert "killed by signal SIGKILL" in error_of(found[0])


def test_a_result_that_cannot_be_pickled_comes_back_as_plain_data(agent_dir: Path) -> None:
    found = collect([job(0, agent_dir, "lock")])
    outcome = found[0]
    assert outcome.result.status.value == "error"  # string_matching on a dict: no text
    outputs = outcome.result.final_trace.interactions[0].outputs
    assert outputs["answer"] == "ok" and "lock" in outputs["lock"]


def test_printed_output_is_kept_but_bounded(agent_dir: Path) -> None:
    output = collect([job(0, agent_dir, "floods")])[0].output
    assert output.startswith("line 0\n") and output.endswith("line 199999\n")
    assert "characters cut" in output and len(output) < 110_000


def test_cancel_ends_every_job_with_an_outcome(agent_dir: Path) -> None:
    async def main() -> list[Outcome]:
        pool = WorkerPool(size=2, concurrency=2)
        jobs = [job(0, agent_dir, "ok")] + [job(k, agent_dir, "hangs") for k in range(1, 6)]
        found = []
        try:
            async for outcome in pool.stream(jobs, RunOptions()):
                found.append(outcome)
                if outcome.key == 0:
                    pool.cancel()
        finally:
            await pool.aclose()
        return found

    found = asyncio.run(main())
    assert sorted(o.key for o in found) == list(range(6))
    assert [o.ending for o in found if o.key] == [Ending.CANCELLED] * 5
    assert all(o.result.status.value == "skip" for o in found if o.key)


def test_a_worker_past_its_deadline_is_replaced_and_its_neighbours_rerun(agent_dir: Path) -> None:
    jobs = [job(0, agent_dir, "hangs"), job(1, agent_dir, "slow"), job(2, agent_dir, "ok")]
    found = collect(jobs, Settings(scenario_timeout=1), size=1, concurrency=3)
    assert found[0].ending is Ending.TIMEOUT
    assert error_of(found[0]) == "did not finish within 1 s (stopped)"
    assert [found[k].result.status.value for k in (1, 2)] == ["pass", "pass"]


def test_an_interpreter_without_checkspec_is_a_clear_start_error(
    agent_dir: Path, tmp_path: Path
) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'No module named checkspec' >&2\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(WorkerStartError, match="No module named checkspec"):
        collect([job(0, agent_dir, "ok")], python=str(fake))


def test_a_relative_interpreter_is_taken_from_the_workspace_root(tmp_path: Path) -> None:
    assert worker_python(".venv/bin/python", tmp_path) == str(tmp_path / ".venv/bin/python")
    assert worker_python("python3.12", tmp_path) == "python3.12"  # a name: found on PATH
    assert worker_python(None, tmp_path) == sys.executable


def test_a_warm_pool_imports_edited_code_afresh(agent_dir: Path) -> None:
    module = agent_dir / "exec_agent.py"

    async def main() -> list[str]:
        pool = WorkerPool(size=1, concurrency=1, keep_warm=True)
        statuses = []
        try:
            for answer in ("before", "after"):
                module.write_text(f"def ok(question):\n    return {answer!r}\n", encoding="utf-8")
                async for outcome in pool.stream([job(0, agent_dir, "ok", "after")], RunOptions()):
                    statuses.append(outcome.result.status.value)
        finally:
            await pool.aclose()
        return statuses

    assert asyncio.run(main()) == ["fail", "pass"]


def test_the_in_process_executor_streams_and_cancels_too(agent_dir: Path) -> None:
    async def main() -> list[Outcome]:
        executor = InProcessExecutor(concurrency=4)
        jobs = [job(0, agent_dir, "ok"), job(1, agent_dir, "slow")]
        found = []
        async for outcome in executor.stream(jobs, RunOptions()):
            found.append(outcome)
            executor.cancel()
        return found

    first, second = asyncio.run(main())
    assert (first.key, first.result.status.value) == (0, "pass")
    assert (second.key, second.ending) == (1, Ending.CANCELLED)


def test_captured_keeps_head_and_tail() -> None:
    captured = Captured(limit=10)
    for part in ("abc", "defgh", "ijklmnop", "qrstuvwxyz"):
        captured.write(part)
    assert captured.text() == "abcde\n[... 16 characters cut ...]\nvwxyz"
