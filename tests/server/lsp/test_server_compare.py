"""`checkspec.compareWithPrevious [uri]` over stdio: the compare page of the file's last
two recorded runs (recorded by `checkspec run`), or why there is none; and an editor run
showing, in the transcript hover and the last-run view, the verdict recorded before."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.lsp_helpers import open_file, position_of, start_session

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"])

SPEC = """name: compared
steps:
  - interacts: [{inputs: hi, outputs: hello there}]
    checks:
      - {kind: string_matching, keyword: KEYWORD}
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("compare")
    (folder / "checkspec.yaml").write_text("{}\n", encoding="utf-8")
    spec = folder / "greet.scenario.yaml"
    for keyword, code in (("hello", 0), ("goodbye", 1)):  # passes, then newly fails
        spec.write_text(SPEC.replace("KEYWORD", keyword), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "checkspec.engine.cli.main", "run", spec.name],
            cwd=folder,
            env={**os.environ, "CHECKSPEC_MODEL": ""},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == code, done.stderr
    (folder / "never.scenario.yaml").write_text(SPEC.replace("KEYWORD", "x"), encoding="utf-8")
    (folder / "sub").mkdir()
    # Recorded failing, then run passing in the editor; mixed is run from a subfolder, so
    # the CLI names it ../mixed.scenario.yaml.
    for name, cwd in (("previous", folder), ("mixed", folder / "sub")):
        spec = folder / f"{name}.scenario.yaml"
        spec.write_text(SPEC.replace("KEYWORD", "goodbye"), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "checkspec.engine.cli.main", "run", f"../{spec.name}"]
            if cwd != folder
            else [sys.executable, "-m", "checkspec.engine.cli.main", "run", spec.name],
            cwd=cwd,
            env={**os.environ, "CHECKSPEC_MODEL": ""},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 1, done.stderr
    return folder


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    @lsp_client.feature("checkspec/scenarioFinished")
    def finished(params: Any) -> None:
        return None

    await start_session(lsp_client, workspace)
    yield
    await lsp_client.shutdown_session()


async def _compare(client: LanguageClient, uri: str) -> dict[str, Any]:
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.compareWithPrevious", arguments=[uri])
    )
    assert isinstance(answer, dict)
    return answer


async def test_compare_with_previous_answers_the_page(
    client: LanguageClient, workspace: Path
) -> None:
    answer = await _compare(client, (workspace / "greet.scenario.yaml").as_uri())
    assert "error" not in answer, answer
    page = answer["html"]
    assert page.startswith("<!doctype html>") and not re.search(r"https?://", page)
    found = re.search(r'id="checkspec-data" data-encoding="json">(.*?)</script>', page, re.S)
    assert found
    data = json.loads(found.group(1))["data"]
    assert data["newly_failing"] and "compared" in json.dumps(data["newly_failing"])
    assert answer["base"] != answer["head"]


async def test_a_file_without_two_runs_says_so(client: LanguageClient, workspace: Path) -> None:
    answer = await _compare(client, (workspace / "never.scenario.yaml").as_uri())
    assert "html" not in answer and "run it again" in answer["error"]
    answer = await _compare(client, "not a uri")
    assert "takes [file uri]" in answer["error"]


async def test_an_editor_run_shows_the_verdict_recorded_before(
    client: LanguageClient, workspace: Path
) -> None:
    text = SPEC.replace("KEYWORD", "hello")
    uri = open_file(client, workspace / "previous.scenario.yaml", text)
    ran = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runFile", arguments=[uri])
    )
    assert ran["status"] == "pass", ran
    shown = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.showLastRun", arguments=[uri, 0])
    )
    assert shown["previous"]["status"] == "fail", shown
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position_of(text, "compared", 2),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "previously ✗ fail" in hover.contents.value


async def test_an_editor_run_compares_with_a_cli_run_of_the_same_file(
    client: LanguageClient, workspace: Path
) -> None:
    # The fixture's CLI run of mixed.scenario.yaml failed; the editor's run passes it: the
    # same scenario, fixed (the CLI names the file relatively, the editor by its path).
    text = SPEC.replace("KEYWORD", "hello")
    uri = open_file(client, workspace / "mixed.scenario.yaml", text)
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runFile", arguments=[uri])
    )
    answer = await _compare(client, uri)
    page = answer["html"]
    found = re.search(r'id="checkspec-data" data-encoding="json">(.*?)</script>', page, re.S)
    assert found
    data = json.loads(found.group(1))["data"]
    assert not data["added"] and not data["removed"], data
    assert [c["name"] for c in data["fixed"]] == ["compared"]
