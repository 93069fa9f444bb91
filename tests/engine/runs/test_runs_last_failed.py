"""The last-failed record is the run session's (engine/runs/last_failed.py): a run from the
pytest plugin or the editor writes it as the CLI's does, so `checkspec run --last-failed`
afterwards selects what failed there. Real processes on real files."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.lsp_helpers import start_session
from tests.support.processes import LEAN_PYTEST

pytest_plugins = ["pytester"]

AGENT = """
def answer(question: str) -> str:
    return "yes" if "good" in question else "no"
"""

SUITE = """
name: s
target: python:agent:answer
scenarios:
  - name: good one
    steps:
      - interacts: [{inputs: good}]
        checks: [{kind: string_matching, keyword: "yes"}]
  - name: bad one
    steps:
      - interacts: [{inputs: bad}]
        checks: [{kind: string_matching, keyword: "yes"}]
"""


def workspace(folder: Path) -> Path:
    (folder / "checkspec.yaml").write_text("history: true\n", encoding="utf-8")
    (folder / "agent.py").write_text(textwrap.dedent(AGENT), encoding="utf-8")
    suite = folder / "s.suite.yaml"
    suite.write_text(textwrap.dedent(SUITE).lstrip(), encoding="utf-8")
    return suite


def last_failed_run(folder: Path) -> tuple[list[str], str]:
    """The scenarios `checkspec run --last-failed` runs there, and its stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "checkspec.engine.cli.main", "run", "s.suite.yaml",
         "--last-failed", "--format", "json"],
        cwd=folder, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    return [s["id"] for s in json.loads(done.stdout)["scenarios"]], done.stderr


def test_a_pytest_plugin_run_is_what_the_last_failed_cli_run_selects(
    pytester: pytest.Pytester,
) -> None:
    workspace(pytester.path)
    result = pytester.runpytest_subprocess(*LEAN_PYTEST, "--checkspec", "-p", "no:asyncio")
    result.assert_outcomes(passed=1, failed=1)
    ran, stderr = last_failed_run(pytester.path)
    assert [r.rsplit("::", 1)[1] for r in ran] == ["bad one"], ran
    assert "running the 1 that failed last time" in stderr


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("editor-last-failed")


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"]),
)
async def client(lsp_client: LanguageClient, folder: Path):
    await start_session(lsp_client, folder)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_an_editor_run_is_what_the_last_failed_cli_run_selects(
    client: LanguageClient, folder: Path
) -> None:
    suite = workspace(folder)
    answer: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runFile", arguments=[suite.as_uri()])
    )
    statuses = {s["scenario"]: s["status"] for s in answer["scenarios"]}
    assert statuses == {"good one": "pass", "bad one": "fail"}, answer
    ran, _ = last_failed_run(folder)
    assert [r.rsplit("::", 1)[1] for r in ran] == ["bad one"], ran
