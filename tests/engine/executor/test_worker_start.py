"""A worker starts light, and what a job needs is loaded before its deadline starts.

A worker says it is ready before importing the engine: the settings, the judges and their
prompts (jinja2) load only when a run's options and jobs arrive, and only those its jobs
name. The modules of a job's checks load while its message is read, before the worker says
the job started: the parent's deadline for the scenario never pays for them.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from checkspec.engine import Check, Groundedness, Scenario, StringMatching
from checkspec.engine.executor import Job, RunOptions, WorkerPool
from checkspec.engine.settings import Settings

# What the target sees when it is called (inside the scenario's deadline).
AGENT = """
import json, sys

def loaded(question):
    return json.dumps({name: name in sys.modules for name in (
        "checkspec.engine.judges", "checkspec.engine.llm.prompts", "jinja2",
        "checkspec.engine.executor.pool",
    )})
"""


def test_importing_the_worker_loads_no_engine() -> None:
    script = textwrap.dedent(
        """
        import json, sys
        import checkspec.engine.executor.worker
        print(json.dumps(sorted(sys.modules)))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "checkspec.engine.executor.wire" in loaded
    for heavy in (
        "pydantic",
        "checkspec.engine.settings",
        "checkspec.engine.executor.pool",
        "checkspec.engine.judges",
        "jinja2",
    ):
        assert heavy not in loaded, heavy


def _seen_by_the_target(tmp_path: Path, check: Check) -> dict[str, bool]:
    """What the target saw of the worker's modules, in a scenario with `check`."""
    (tmp_path / "start_agent.py").write_text(textwrap.dedent(AGENT), encoding="utf-8")
    scenario = Scenario("seen", target="python:start_agent:loaded").interact("hello").check(check)

    async def main() -> dict[str, bool]:
        pool = WorkerPool(size=1, concurrency=1)
        try:
            jobs = [Job(0, scenario.placed([str(tmp_path)]))]
            async for outcome in pool.stream(jobs, RunOptions(Settings())):
                outputs = outcome.result.final_trace.interactions[0].outputs
                return dict(json.loads(outputs))
        finally:
            await pool.aclose()
        raise AssertionError("no outcome")

    return asyncio.run(main())


def test_a_scenario_without_judges_runs_without_loading_them(tmp_path: Path) -> None:
    seen = _seen_by_the_target(tmp_path, StringMatching(keyword="judges"))
    assert seen == {
        "checkspec.engine.judges": False,
        "checkspec.engine.llm.prompts": False,
        "jinja2": False,
        "checkspec.engine.executor.pool": False,
    }


def test_a_judged_scenario_has_its_judge_loaded_before_it_starts(tmp_path: Path) -> None:
    seen = _seen_by_the_target(tmp_path, Groundedness(context="hello"))
    assert seen["checkspec.engine.judges"] and seen["checkspec.engine.llm.prompts"]
