"""The whole flow, as a new user walks it (issue 35 item 9): from an empty folder, `init` →
`generate --from-docs` → review (status active) → tag and move → `run` → `run --record` →
`history` → `compare` → `report`, with a plain `answer(question: str) -> str` agent.

Once through the command line, then the same workspace through the pytest plugin and
through the language server: each step takes what the one before wrote, and the three
front ends select the same scenarios and give them the same statuses. The model (the
generator and every judge) is the local OpenAI-compatible stub; everything else is real:
subprocesses of the CLI, an inner pytest, the language server over stdio.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
import yaml
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.generate_helpers import generator_and_passing_judges, knowledge_base
from tests.support.lsp_helpers import change_file, start_session
from tests.support.openai_stub import GenerationAnswers, OpenAIStub, running_stub
from tests.support.processes import pytest_command

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
AGENT = """def answer(question: str) -> str:
    return "Thanks for asking. You asked: " + question
"""
ENV = {k: v for k, v in os.environ.items() if not k.startswith("CHECKSPEC_")}
ENV["CHECKSPEC_API_KEY"] = "sk-test"


@pytest.fixture(scope="module")
def stub() -> Iterator[OpenAIStub]:
    """Answers generation prompts as a model would, and every judge: pass."""
    answers = GenerationAnswers()
    with running_stub() as server:
        server.chat = generator_and_passing_judges(answers)
        server.embeddings = lambda text: [1.0, 0.0, float(len(text) % 7)]
        yield server


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory, stub: OpenAIStub) -> dict[str, str]:
    """The CLI's walk (below), once per module, whichever test asks first: the statuses of
    its run by scenario id."""
    return walk_the_cli(tmp_path_factory.mktemp("flow") / "shop", stub)


@pytest.fixture(scope="module")
def workspace(walked: dict[str, str]) -> Path:
    """The workspace the CLI's walk left."""
    return Path(walked["workspace"])


def cli(cwd: Path, *args: str, code: int | None = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=300, env=ENV
    )
    if code is not None:
        assert done.returncode == code, f"checkspec {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


def selectors(cwd: Path, *args: str) -> list[str]:
    listed = json.loads(cli(cwd, "list", "scenarios", *args, "--format", "json").stdout)
    return [entry["selector"] for entry in listed["scenarios"]]


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {s["id"]: s["status"] for s in report["scenarios"]}


def walk_the_cli(workspace: Path, stub: OpenAIStub) -> dict[str, str]:
    workspace.mkdir(parents=True)
    # init: a commented checkspec.yaml, an example scenario, .checkspec/ ignored.
    cli(workspace, "init", "--model", "openai/stub-model", "--target", "python:agent:answer")
    config = workspace / "checkspec.yaml"
    assert "model: openai/stub-model" in config.read_text()
    config.write_text(config.read_text() + f"api_base: {stub.base_url}\n")
    (workspace / "agent.py").write_text(AGENT)
    knowledge_base(workspace)
    assert cli(workspace, "run", ".", code=None).returncode in (0, 1)  # the example runs

    # generate: drafts, made for the workspace's target.
    made = cli(
        workspace, "generate", "--from-docs", "kb", "-o", "suites/gen.dataset.yaml",
        "--count", "6", "--seed", "3",
    )  # fmt: skip
    generated = yaml.safe_load((workspace / "suites/gen.dataset.yaml").read_text())
    assert generated["target"] == "python:agent:answer", made.stderr
    drafts = selectors(workspace, "suites/gen.dataset.yaml")
    assert len(drafts) == len(generated["scenarios"]) >= 3
    # Drafts are not run until reviewed.
    nothing = cli(workspace, "run", "suites", code=None)
    assert "draft scenario(s) not run" in nothing.stdout

    # review, tag, move: selectors printed by `list` are taken back by every command.
    cli(workspace, "status", "active", "suites/gen.dataset.yaml")
    assert selectors(workspace, "suites", "--status", "draft") == []
    first, second = drafts[0], drafts[1]
    cli(workspace, "tag", "add", "smoke", first)
    cli(workspace, "move", second, "--to", "suites/moved.dataset.yaml")
    assert len(selectors(workspace, "suites/moved.dataset.yaml")) == 1
    assert len(selectors(workspace, "suites", "--tag", "smoke")) == 1

    # run: every scenario passes against the plain-string agent; the smoke tag selects one.
    ran = json.loads(cli(workspace, "run", "suites", "--format", "json").stdout)
    assert set(statuses(ran).values()) == {"pass"}, ran
    assert len(ran["scenarios"]) == len(drafts) + 1  # and init's example
    smoke = json.loads(cli(workspace, "run", "suites", "--tag", "smoke", "--format", "json").stdout)
    assert len(smoke["scenarios"]) == 1

    # run --record writes the agent's answers into the files; the next run still passes.
    cli(workspace, "run", "suites", "--record")
    recorded = yaml.safe_load((workspace / "suites/moved.dataset.yaml").read_text())
    assert "You asked: " in json.dumps(recorded)
    assert cli(workspace, "validate", "suites").returncode == 0

    # history, compare, report: the runs kept, nothing newly failing, a page of the last.
    history = json.loads(cli(workspace, "history", "--format", "json").stdout)
    assert len(history) >= 4
    compared = cli(workspace, "compare", "--format", "json")
    assert json.loads(compared.stdout)["newly_failing"] == []
    cli(workspace, "report", "-o", "report.html")
    page = (workspace / "report.html").read_text()
    assert page.lower().startswith("<!doctype html") and "moved.dataset.yaml" in page

    return {**statuses(ran), "workspace": str(workspace)}


def test_the_cli_flow(walked: dict[str, str]) -> None:
    scenarios = {k: v for k, v in walked.items() if k != "workspace"}
    assert scenarios and set(scenarios.values()) == {"pass"}


def test_the_pytest_plugin_runs_the_same_scenarios(workspace: Path) -> None:
    """The same workspace through `pytest --checkspec`: the same scenarios as `run`, the
    same statuses, drafts left out the same way."""
    expected = statuses(json.loads(cli(workspace, "run", "suites", "--format", "json").stdout))
    done = subprocess.run(
        pytest_command("--checkspec", "suites", "-p", "no:asyncio", "-v", "-p", "no:cacheprovider",
                       "-p", "no:randomly", "-p", "no:random_order"),
        cwd=workspace, capture_output=True, text=True, timeout=300, env=ENV,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    passed = re.findall(r"^(.+?) PASSED +\[", done.stdout, re.MULTILINE)
    # The plugin's items are the CLI's scenario ids: the same selection.
    assert sorted(passed) == sorted(expected), done.stdout
    assert f"{len(expected)} passed" in done.stdout
    # The plugin's run is kept in the same history, next to the CLI's.
    history = json.loads(cli(workspace, "history", "--format", "json").stdout)
    assert history[0]["source"] == "pytest"


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "checkspec.server"], server_env=ENV
)


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    await start_session(lsp_client, workspace)
    yield
    await lsp_client.shutdown_session()


async def execute(client: LanguageClient, command: str, *arguments: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=list(arguments))
    )


@pytest.mark.asyncio(loop_scope="module")
async def test_the_editor_generates_reviews_and_runs_the_same_way(
    client: LanguageClient, workspace: Path
) -> None:
    path = workspace / "suites" / "editor.dataset.yaml"
    made = await execute(
        client, "checkspec.generate",
        {"docs": [str(workspace / "kb")], "output": path.as_uri(), "count": 3, "seed": 3},
    )  # fmt: skip
    assert made["status"] == "written", made
    text = path.read_text()
    assert yaml.safe_load(text)["target"] == "python:agent:answer"
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text))
    )
    # Drafts: the run leaves them out, as the CLI does.
    before = await execute(client, "checkspec.runFile", uri)
    assert {s["status"] for s in before["scenarios"]} == {"skip"}, before

    # Review every draft through the curation code action, applied as the editor would.
    line = next(i for i, t in enumerate(text.splitlines()) if "status: draft" in t)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    review = next(a for a in actions or [] if re.match(r"Mark all \d+ drafts reviewed", a.title))
    edits = sorted(
        review.edit.changes[uri],
        key=lambda e: (e.range.start.line, e.range.start.character),
        reverse=True,
    )
    lines = text.splitlines(keepends=True)
    for edit in edits:  # single-line edits, applied bottom-up
        row = lines[edit.range.start.line]
        lines[edit.range.start.line] = (
            row[: edit.range.start.character] + edit.new_text + row[edit.range.end.character :]
        )
    reviewed = "".join(lines)
    assert "status: draft" not in reviewed
    path.write_text(reviewed)
    change_file(client, uri, reviewed, 2)

    ran = await execute(client, "checkspec.runFile", uri)
    assert [s["status"] for s in ran["scenarios"]] == ["pass"] * 3, ran
    # The CLI selects and judges this file the same way.
    again = json.loads(cli(workspace, "run", str(path), "--format", "json").stdout)
    assert [s["status"] for s in again["scenarios"]] == ["pass"] * 3
    history = json.loads(cli(workspace, "history", "--format", "json").stdout)
    assert "editor" in {run["source"] for run in history}
