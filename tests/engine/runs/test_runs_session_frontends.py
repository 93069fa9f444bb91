"""One run session under every front end (engine/runs/): the CLI, the pytest plugin and
the language server leave drafts out unless asked, fold `repeat` runs into one verdict and
keep the run in the workspace's history, the same way. Real processes on real files."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from checkspec.engine.history.store import HistoryStore, history_path
from tests.support.lsp_helpers import start_session
from tests.support.processes import LEAN_PYTEST

ASYNC = pytest.mark.asyncio(loop_scope="module")
pytest_plugins = ["pytester"]

# `flip` passes on its even runs and fails on its odd ones (each run claims a number with
# an exclusive create, so runs side by side in workers still count 0, 1, 2, ...); the
# draft's target leaves a file behind, so a run of it shows.
AGENT = """
import os
from pathlib import Path

HERE = Path(__file__).parent

def flip(question):
    n = 0
    while True:
        try:
            os.close(os.open(HERE / f"claim{n}", os.O_CREAT | os.O_EXCL))
            break
        except FileExistsError:
            n += 1
    return "ok" if n % 2 == 0 else "no"

def drafted(question):
    (HERE / "draft-ran.txt").write_text("it ran")
    return "ok"
"""

SUITE = """
name: s
scenarios:
  - name: flips
    target: python:agent:flip
    steps:
      - interacts: [{inputs: q}]
        checks: [{kind: string_matching, keyword: ok}]
  - name: not reviewed
    status: draft
    target: python:agent:drafted
    steps:
      - interacts: [{inputs: q}]
        checks: [{kind: string_matching, keyword: ok}]
"""


def workspace(folder: Path) -> Path:
    (folder / "checkspec.yaml").write_text("history: true\n", encoding="utf-8")
    (folder / "agent.py").write_text(textwrap.dedent(AGENT), encoding="utf-8")
    suite = folder / "s.suite.yaml"
    suite.write_text(textwrap.dedent(SUITE).lstrip(), encoding="utf-8")
    return suite


def kept(folder: Path) -> dict[str, Any]:
    """The one run in the workspace's history."""
    with HistoryStore(history_path(folder)) as store:
        runs = store.runs()
        assert len(runs) == 1, runs
        return store.load(runs[0].id)


def assert_same_run(folder: Path, source: str, max_cost: float | None = None) -> None:
    """Drafts left out, the two runs of `flips` folded into one flaky failure, kept (with
    the budget the run had)."""
    assert not (folder / "draft-ran.txt").exists()
    assert sorted(p.name for p in folder.glob("claim*")) == ["claim0", "claim1"]
    payload = kept(folder)
    assert payload["run"]["source"] == source
    assert payload["run"]["settings"]["max_cost"] == max_cost
    [scenario] = payload["scenarios"]
    assert scenario["id"].endswith("s.suite.yaml::flips")
    assert scenario["status"] == "fail"
    repeats = scenario["repeats"]
    assert (repeats["runs"], repeats["passed"], repeats["flaky"]) == (2, 1, True)
    assert sorted(repeats["statuses"]) == ["fail", "pass"]


def test_the_cli_leaves_drafts_out_folds_repeats_and_keeps_the_run(tmp_path: Path) -> None:
    workspace(tmp_path)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "checkspec.engine.cli.main",
            "run",
            "s.suite.yaml",
            "--repeat",
            "2",
            "--max-cost",
            "0.5",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "left out: 1 draft scenario(s) not run" in done.stdout  # with the report
    assert_same_run(tmp_path, "cli", max_cost=0.5)


def test_the_pytest_plugin_does_the_same(pytester: pytest.Pytester) -> None:
    workspace(pytester.path)
    result = pytester.runpytest_subprocess(
        *LEAN_PYTEST,
        "--checkspec",
        "--checkspec-repeat",
        "2",
        "--checkspec-max-cost",
        "0.5",
        "-p",
        "no:asyncio",
        "-rs",
    )
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*a draft (status: draft): --checkspec-drafts runs it*"])
    result.stdout.fnmatch_lines(["*1/2 runs passed (50%), flaky*"])
    assert_same_run(pytester.path, "pytest", max_cost=0.5)


def test_the_pytest_plugin_runs_drafts_when_asked(pytester: pytest.Pytester) -> None:
    workspace(pytester.path)
    result = pytester.runpytest_subprocess(
        *LEAN_PYTEST, "--checkspec", "--checkspec-drafts", "-p", "no:asyncio"
    )
    result.assert_outcomes(passed=2)
    assert (pytester.path / "draft-ran.txt").exists()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("editor-runs")


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"]),
)
async def client(lsp_client: LanguageClient, folder: Path):
    await start_session(lsp_client, folder)
    yield
    await lsp_client.shutdown_session()


async def run_file(client: LanguageClient, *arguments: Any) -> dict[str, Any]:
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runFile", arguments=list(arguments))
    )
    assert isinstance(answer, dict), answer
    return answer


@ASYNC
async def test_the_language_server_does_the_same(client: LanguageClient, folder: Path) -> None:
    suite = workspace(folder)
    uri = suite.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri, "yaml", 1, suite.read_text(encoding="utf-8"))
        )
    )
    answer = await run_file(client, uri, None, {"repeat": 2})
    statuses = {s["scenario"]: s["status"] for s in answer["scenarios"]}
    assert statuses == {"flips": "fail", "not reviewed": "skip"}, answer
    assert answer["runId"] == kept(folder)["run"]["id"]
    assert_same_run(folder, "editor")
    # The editor shows the folded verdict: the runs' tally in the summary, at the
    # scenario's name and at each check, as `run --repeat` prints it.
    flips = answer["scenarios"][0]
    assert (flips["repeats"]["runs"], flips["repeats"]["passed"]) == (2, 1)
    assert flips["summary"].endswith("1/2 runs passed (50%), flaky"), flips["summary"]
    shown = {d.range.start.line: d.message for d in client.diagnostics[uri]}
    check_line = (
        SUITE.lstrip().splitlines().index("        checks: [{kind: string_matching, keyword: ok}]")
    )
    assert shown[check_line].endswith("(passed 1 of 2 runs)"), shown
    begun = [
        r.message
        for reports in client.progress_reports.values()
        for r in reports
        if isinstance(r, types.WorkDoneProgressBegin)
    ]
    assert "Running 1 scenario 2 times" in begun, begun
    assert any(m.endswith("1/2 runs passed (50%), flaky") for m in shown.values()), shown


@ASYNC
async def test_the_language_server_refuses_a_bad_repeat(
    client: LanguageClient, folder: Path
) -> None:
    answer = await run_file(client, (folder / "s.suite.yaml").as_uri(), None, {"repeat": 0})
    assert "takes [uri] or [uri, [scenario indexes]]" in answer["error"]
