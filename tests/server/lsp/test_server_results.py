"""Results in place over stdio: after a run, each check's outcome as an inlay hint, the
transcript on hover and from `checkspec.showLastRun`, lenses with the outcome and with why
a scenario cannot run; an edit hides the results of the scenario it touches only."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.support.lsp_helpers import change_file, open_file, position_of, start_session

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"])

SUITE = """
name: results
scenarios:
  - name: scores well
    steps:
      - interacts:
          - inputs: How good is it?
            outputs: {answer: "fine ``` <img src=x onerror=alert(1)> [link](http://x)", score: 0.42}
        checks:
          - kind: string_matching
            target_key: trace.last.outputs.answer
            keyword: fine
          - kind: greater_than
            target_key: trace.last.outputs.score
            expected_value: 0.8
  - name: passes
    steps:
      - interacts: [{inputs: hi, outputs: hello}]
        checks:
          - {kind: string_matching, keyword: hell}
  - name: broken
    steps:
      - interacts: [{inputs: hi, outputs: hello}]
        checks:
          - {kind: string_matchin, keyword: hell}
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("results")


REFRESHED: list[str] = []  # the refresh requests the server sent (ServerRequests.refreshed)


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    @lsp_client.feature("checkspec/scenarioFinished")
    def finished(params: Any) -> None:
        return None

    capabilities = client_capabilities("visual-studio-code")  # a snapshot before inlay hints
    assert capabilities.workspace is not None
    capabilities.workspace.inlay_hint = types.InlayHintWorkspaceClientCapabilities(
        refresh_support=True
    )
    _, seen = await start_session(lsp_client, workspace, capabilities=capabilities)
    seen.refreshed = REFRESHED
    yield
    await lsp_client.shutdown_session()


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def hints(client: LanguageClient, uri: str) -> dict[int, list[str]]:
    found = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=doc(uri),
            range=types.Range(types.Position(0, 0), types.Position(100, 0)),
        )
    )
    by_line: dict[int, list[str]] = {}
    for hint in found or []:
        assert isinstance(hint.label, str)
        by_line.setdefault(hint.position.line, []).append(hint.label)
    return by_line


async def run(client: LanguageClient, uri: str) -> dict[str, Any]:
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runFile", arguments=[uri])
    )
    assert isinstance(result, dict)
    return result


def line_of(needle: str, text: str = SUITE) -> int:
    return position_of(text, needle).line


async def test_each_check_shows_its_outcome_at_its_line_after_a_run(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "hints.suite.yaml", SUITE)
    assert await hints(client, uri) == {}  # nothing before a run
    result = await run(client, uri)
    assert {"inlay hints", "code lenses"} <= set(REFRESHED)  # the editor is told to ask again
    assert [s["status"] for s in result["scenarios"]] == ["fail", "pass", "invalid"]
    found = await hints(client, uri)
    (passed,) = found[line_of("kind: string_matching")]
    assert passed.startswith("✓ ") and passed.endswith("ms")
    assert found[line_of("kind: greater_than")] == ["✗ 0.42 is not > 0.8"]
    assert found[line_of("name: scores well")][0].startswith("✗ fail")
    assert found[line_of("{kind: string_matching, keyword: hell}")][0].startswith("✓")
    assert line_of("string_matchin,") not in found  # never ran

    # The summary carries the time of each check and the agent's answer.
    first = result["scenarios"][0]
    assert all("duration_ms" in check for check in first["checks"])
    assert first["answer"].startswith("{")


async def test_an_edit_hides_the_results_of_the_scenario_it_touches_only(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "stale.suite.yaml", SUITE)
    await run(client, uri)
    text = textwrap.dedent(SUITE).lstrip("\n")
    edited = text.replace("expected_value: 0.8", "expected_value: 0.4\n            # tuned")
    change_file(client, uri, edited, version=2)
    found = await hints(client, uri)
    assert line_of("kind: greater_than", edited) not in found  # its scenario changed
    moved = line_of("{kind: string_matching, keyword: hell}", edited)
    assert moved == line_of("{kind: string_matching, keyword: hell}") + 1
    assert found[moved][0].startswith("✓")  # the other scenario's result moved with it


async def test_hovering_a_scenario_name_shows_the_conversation_and_the_verdicts(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "hover.suite.yaml", SUITE)
    await run(client, uri)
    found = await client.text_document_hover_async(
        types.HoverParams(doc(uri), position_of(SUITE, "scores well", 2))
    )
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    text = found.contents.value
    assert "Last run" in text and "How good is it?" in text
    assert "✗ `greater_than` fail" in text and "Expected value greater than 0.8" in text
    # The agent's answer sits in a code block its backticks cannot close.
    assert "````text" in text or "````json" in text
    assert "\n```\n<img" not in text

    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.showLastRun", arguments=[uri, 0])
    )
    assert answer["status"] == "fail"
    (turn,) = answer["turns"]
    assert turn["inputs"] == "How good is it?" and "score" in turn["outputs"]
    assert [c["kind"] for c in answer["checks"]] == ["string_matching", "greater_than"]
    assert all("details" in c for c in answer["checks"])


async def test_hovering_a_check_shows_what_it_read_in_the_last_run(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "check-hover.suite.yaml", SUITE)
    at = position_of(SUITE, "kind: greater_than", len("kind: gr"))
    before = await client.text_document_hover_async(types.HoverParams(doc(uri), at))
    assert before is not None and isinstance(before.contents, types.MarkupContent)
    assert "Last run" not in before.contents.value  # the kind's documentation only
    await run(client, uri)
    found = await client.text_document_hover_async(types.HoverParams(doc(uri), at))
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    text = found.contents.value
    assert text.startswith("**Last run**: ✗ `greater_than` fail")
    assert '"actual_value": "0.42"' in text  # the value it read
    assert before.contents.value in text  # the documentation, below


async def test_lenses_show_the_outcome_and_why_a_scenario_cannot_run(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "lenses.suite.yaml", SUITE)
    before = await client.text_document_code_lens_async(types.CodeLensParams(doc(uri)))
    titles = [lens.command.title for lens in before or [] if lens.command]
    assert "▶ Run all (2 of 3)" in titles
    assert "⚠ not runnable: unknown check 'string_matchin'" in titles
    await run(client, uri)
    after = await client.text_document_code_lens_async(types.CodeLensParams(doc(uri)))
    shown = [lens.command for lens in after or [] if lens.command]
    (outcome,) = [c for c in shown if c.title.startswith("✗ fail")]
    assert outcome.command == "checkspec.showLastRun" and list(outcome.arguments or []) == [uri, 0]


async def test_a_passing_scenario_adds_nothing_to_the_problems(
    client: LanguageClient, workspace: Path
) -> None:
    text = "name: fine\nsteps:\n  - interacts: [{inputs: hi, outputs: hello}]\n    checks: [{kind: string_matching, keyword: hell}]\n"
    uri = open_file(client, workspace / "fine.scenario.yaml", text)
    result = await run(client, uri)
    assert result["status"] == "pass"
    await asyncio.sleep(0.3)
    assert list(client.diagnostics.get(uri, [])) == []
