"""How many worker processes `checkspec run` starts: one before the files are parsed, and
the others only for scenarios that need them (a one-scenario run started --jobs spares, up
to 8, each an interpreter importing the engine for nothing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from checkspec.engine.executor.pool import WorkerPool
from tests.support.cli import run_main

AGENT = "def answer(question: str) -> str:\n    return 'hello ' + question\n"


def scenarios(count: int) -> str:
    lines = ["name: s", "scenarios:"]
    for n in range(count):
        lines += [
            f"  - name: s{n}",
            "    steps:",
            "      - interacts:",
            f"          - inputs: q{n}",
            "        checks:",
            "          - {kind: string_matching, keyword: hello}",
        ]
    return "\n".join(lines) + "\n"


@pytest.fixture
def spawned(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each worker process started (forked from the pool's template, or an interpreter of
    its own), counted."""
    started: list[int] = []
    spawn = WorkerPool._spawn  # noqa: SLF001 - where both ways of starting one meet

    async def counted(self: WorkerPool) -> Any:
        worker = await spawn(self)
        started.append(worker.proc.pid)
        return worker

    monkeypatch.setattr(WorkerPool, "_spawn", counted)
    return started


@pytest.mark.parametrize(("count", "workers"), [(1, 1), (6, 3)])
def test_a_run_starts_the_workers_its_scenarios_need(
    tmp_path: Path, spawned: list[int], count: int, workers: int
) -> None:
    (tmp_path / "checkspec.yaml").write_text("target: python:agent:answer\n")
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "s.suite.yaml").write_text(scenarios(count))
    done = run_main(tmp_path, "run", "s.suite.yaml", "--jobs", "3", "--no-history")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{count} passed" in done.stdout
    assert len(spawned) == workers
