"""One settings snapshot (issue 35 item 2): a run's settings travel with its jobs, are
read through engine/llm/snapshot.py, and write no module global; the environment is read
in one place. Real executors, the local OpenAI-compatible stub as the model."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

from checkspec.engine import Scenario
from checkspec.engine.executor import WorkerPool
from checkspec.engine.executor.jobs import Job, Outcome, RunOptions
from checkspec.engine.executor.local import InProcessExecutor
from checkspec.engine.judges import Conformity, clear_cache
from checkspec.engine.llm import (
    limits,
    snapshot,
    verdict_cache,
)
from checkspec.engine.settings import Settings, resolve
from tests.support.openai_stub import OpenAIStub, running_stub
from tests.support.paths import REPO

ROOT = REPO
VERDICT = OpenAIStub.verdict(True, "It apologises.")


def judged(rule: str) -> Job:
    scenario = Scenario(name=rule).interact(inputs="hi", outputs="Sorry.")
    return Job(0, scenario.check(Conformity(rule=rule)))


def module_state() -> tuple[object, ...]:
    return (
        snapshot.code_defaults(),  # what user code set: the reference API's setters
        limits._gate,  # noqa: SLF001
    )


async def run_all(executor: object, jobs: list[Job], settings: Settings) -> list[Outcome]:
    return [o async for o in executor.stream(jobs, RunOptions(settings))]  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _no_model_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("CHECKSPEC_MODEL", "CHECKSPEC_API_BASE", "CHECKSPEC_API_KEY", "OPENAI_API_BASE"):
        monkeypatch.delenv(var, raising=False)
    clear_cache()


def test_two_runs_side_by_side_in_one_process_each_call_their_own_model(tmp_path: Path) -> None:
    """The settings are passed with the jobs: two in-process runs at once, with two
    endpoints, prices and caches, each reach their own, and no module global changes."""
    before = module_state()
    with running_stub() as one, running_stub() as two:
        one.chat = two.chat = lambda body: VERDICT
        first = Settings(
            model="openai/one",
            api_base=one.base_url,
            api_key="k1",
            prices=(("openai/one", (0.5, 0.5)),),
            max_cost=1000.0,  # a budget: this run's gate, passed with its jobs
            cache_dir=str(tmp_path / "c1"),
        )
        second = Settings(model="openai/two", api_base=two.base_url, api_key="k2", cache=False)

        async def both() -> tuple[list[Outcome], list[Outcome]]:
            return await asyncio.gather(
                run_all(InProcessExecutor(), [judged("apologises")], first),
                run_all(InProcessExecutor(), [judged("says sorry")], second),
            )

        a, b = asyncio.run(both())
        assert [r["model"] for r in one.chat_requests] == ["one"]
        assert [r["model"] for r in two.chat_requests] == ["two"]
        assert one.chat_headers[0]["authorization"] == "Bearer k1"
        assert two.chat_headers[0]["authorization"] == "Bearer k2"
    assert a[0].result.passed and b[0].result.passed
    assert a[0].result.usage.cost_usd and a[0].result.usage.cost_usd > 0  # first's prices
    assert b[0].result.usage.unpriced == 1  # second has none
    assert (tmp_path / "c1" / verdict_cache.FILE_NAME).exists()  # first's cache only
    assert module_state() == before
    assert snapshot.current() is None


def test_worker_processes_get_the_snapshot_with_their_job() -> None:
    with running_stub() as stub:
        stub.chat = lambda body: VERDICT
        settings = Settings(
            model="openai/worker", api_base=stub.base_url, api_key="kw", cache=False
        )

        async def main() -> list[Outcome]:
            pool = WorkerPool(size=1, concurrency=1)
            try:
                return await run_all(pool, [judged("apologises")], settings)
            finally:
                await pool.aclose()

        (outcome,) = asyncio.run(main())
        assert outcome.result.passed, outcome.result
        assert [r["model"] for r in stub.chat_requests] == ["worker"]
        assert stub.chat_headers[0]["authorization"] == "Bearer kw"


def test_the_resolver_reads_the_secrets_and_the_sdk_base_with_the_rest() -> None:
    environ = {
        "CHECKSPEC_API_KEY": "sk-1",
        "OPENAI_API_BASE": "http://sdk/v1",
        "CHECKSPEC_MAX_PROMPT_SIZE": "5000",
    }
    found = resolve(None, environ=environ)
    assert found.settings.api_key == "sk-1" and found.origins["api_key"] == "CHECKSPEC_API_KEY"
    assert found.settings.sdk_api_base == "http://sdk/v1"
    assert found.settings.max_prompt_size == 5000
    assert "sk-1" not in repr(found.settings)


# The modules that may touch the process's environment besides its one reader, and why:
# none of them reads a setting.
ENVIRONMENT_ALLOWED = {
    # The one reader: the resolver's variables (snapshot.py reads them through it), the
    # reference library's GISKARD_CHECKS_* and `.env`, the language server's switches.
    "engine/core/environment.py",
    # A child's environment built from this one: the workers', Ray's workers' (the
    # CHECKSPEC_* variables go with the code), git's (without what points it elsewhere).
    "engine/executor/pool.py",
    "engine/executor/ray_executor.py",
    "engine/history/payload.py",
    # A worker's handshake with its parent (wire.PARENT_VARIABLE), and litellm's local
    # cost map switched on before litellm loads.
    "engine/executor/worker.py",
    # A library's own variable set up before it loads: litellm's offline switches,
    # OpenTelemetry's content capture, pydantic's plugins off while validating.
    "engine/llm/client.py",
    "engine/capture/otel.py",
    "engine/cli/main.py",
}
_ENVIRONMENT_NAMES = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


def _environment_uses(tree: ast.AST) -> list[int]:
    """The lines that touch the environment: `os.environ`/`os.getenv`... (`os` under any
    name) and `from os import environ`."""
    aliases = {"os"}
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update(a.asname or a.name for a in node.names if a.name == "os")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            lines += [node.lineno for a in node.names if a.name in _ENVIRONMENT_NAMES]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in _ENVIRONMENT_NAMES
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            lines.append(node.lineno)
    return sorted(lines)


def test_the_environment_is_read_in_one_place() -> None:
    """Only engine/core/environment.py reads the process's environment (the resolver,
    the reference library's variables, the server's switches go through it); the other
    modules of the engine and the server that touch it are listed above with why, and
    each still does (a stale entry would let a read slip in)."""
    found: dict[str, list[int]] = {}
    for folder in ("engine", "server"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            lines = _environment_uses(ast.parse(path.read_text(encoding="utf-8")))
            if lines:
                found[path.relative_to(ROOT).as_posix()] = lines
    outside = {name: lines for name, lines in found.items() if name not in ENVIRONMENT_ALLOWED}
    assert outside == {}, "read the environment through engine/core/environment.py"
    assert set(found) == ENVIRONMENT_ALLOWED, ENVIRONMENT_ALLOWED - set(found)


def test_the_check_of_environment_reads_sees_every_spelling() -> None:
    spelled = """
import os
import os as system
from os import getenv
a = os.environ.get("X")
b = system.getenv("Y")
c = os.environ["Z"]
os.environ.setdefault("W", "1")
"""
    assert _environment_uses(ast.parse(spelled)) == [4, 5, 6, 7, 8]
    assert _environment_uses(ast.parse("import os\npath = os.path.join('a')\n")) == []
