"""Curation in the editor over stdio: workspace/symbol over every spec file (open or not),
tag completion with counts, and code actions on a selection of scenarios as edits."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from lsprotocol.converters import get_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.support.lsp_helpers import (
    apply_edits,
    change_file,
    open_file,
    position_of,
    start_session,
    symbols,
)

# One server, in sequence: pytest-random-order keeps this module's order (tests read the workspace's
# tags and symbols while others add files to it); the module itself is shuffled among the others.
pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.random_order(disabled=True),
]

converter = get_converter()
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"])

SUITE = """\
name: support
scenarios:
  - name: refund window
    tags: [billing, reviewed]
    steps:
      - interacts: [{inputs: Can I get my money back?, outputs: Within 30 days.}]
        checks: [{kind: string_matching, keyword: days}]
  - name: shipping to Canada
    tags: [billing]
    steps:
      - interacts: [{inputs: Do you ship abroad?, outputs: EU only.}]
        checks: [{kind: string_matching, keyword: EU}]
  - name: opening hours
    steps:
      - interacts: [{inputs: When are you open?, outputs: "9:00"}]
        checks: [{kind: string_matching, keyword: "9"}]
"""

ROW = {
    "name": "où est ma commande",
    "tags": ["fr"],
    "interactions": [{"input": "Wo ist meine Bestellung?", "output": "morgen"}],
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("curate")
    (root / "checkspec.yaml").write_text("jobs: 1\n")
    (root / "suites").mkdir()
    (root / "suites" / "support.suite.yaml").write_text(SUITE)  # never opened
    (root / "rows.dataset.jsonl").write_text(json.dumps(ROW) + "\n")  # never opened
    return root


APPLIED: list[types.ApplyWorkspaceEditParams] = []  # workspace/applyEdit the server asked


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        APPLIED.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    capabilities = client_capabilities("visual-studio-code")
    # The editor commands of "Add tag…" and the like are offered to a client that has them.
    capabilities.experimental = {"checkspecCurationPrompts": True}
    await start_session(lsp_client, workspace, capabilities=capabilities, folders=True)
    yield
    await lsp_client.shutdown_session()


def edits_of(edit: types.WorkspaceEdit) -> list[types.TextDocumentEdit]:
    assert edit.changes is None and edit.document_changes is not None
    return [c for c in edit.document_changes if isinstance(c, types.TextDocumentEdit)]


async def test_workspace_symbols_cover_files_never_opened(
    client: LanguageClient, workspace: Path
) -> None:
    found = await symbols(client, "refund")
    assert [s.name for s in found] == ["refund window"]
    (refund,) = found
    assert refund.location.uri == (workspace / "suites" / "support.suite.yaml").as_uri()
    assert refund.location.range.start == position_of(SUITE, "refund window")
    assert refund.container_name == "support.suite.yaml [billing, reviewed]"
    # an input, a tag, a fuzzy name, a dataset row's input
    assert [s.name for s in await symbols(client, "abroad")] == ["shipping to Canada"]
    assert {s.name for s in await symbols(client, "billing")} == {
        "refund window",
        "shipping to Canada",
    }
    assert [s.name for s in await symbols(client, "opnhrs")] == ["opening hours"]
    assert [s.name for s in await symbols(client, "bestellung")] == ["où est ma commande"]


async def test_workspace_symbols_follow_the_open_text(
    client: LanguageClient, workspace: Path
) -> None:
    path = workspace / "open.scenario.yaml"
    uri = open_file(client, path, "name: typed just now\nsteps: []\n", save=False)
    assert uri
    assert [s.name for s in await symbols(client, "just now")] == ["typed just now"]


async def test_tags_complete_from_the_workspace_with_their_counts(
    client: LanguageClient, workspace: Path
) -> None:
    text = "name: new one\ntags: []\nsteps: []\n"
    uri = open_file(client, workspace / "new.scenario.yaml", text)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=1, character=7),
        )
    )
    assert isinstance(result, types.CompletionList)
    shown = [(item.label, item.detail) for item in result.items]
    assert shown[:3] == [
        ("billing", "2 scenarios"),
        ("fr", "1 scenario"),
        ("reviewed", "1 scenario"),
    ]


async def test_code_actions_on_a_selection_edit_its_scenarios(
    client: LanguageClient, workspace: Path
) -> None:
    path = workspace / "selected.suite.yaml"
    uri = open_file(client, path, SUITE)
    start = position_of(SUITE, "refund window")
    end = position_of(SUITE, "shipping to Canada")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=start, end=end),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions is not None
    # (pytest-lsp's client reads a code action that carries a command, not an edit, as a
    # Command whose `command` is the text of the nested one: both are looked at.)
    by_title = {a.title: a for a in actions}
    assert "Delete 2 scenarios" in by_title
    assert "Remove tag 'billing' from 2 scenarios" in by_title
    assert "Add tag 'reviewed' to 1 scenario" in by_title
    assert "Mark 2 scenarios draft" in by_title
    assert {"Add tag…", "Move 2 scenarios to file…", "Add comment…"} <= set(by_title), list(
        by_title
    )

    def edited(title: str) -> str:
        action = by_title[title]
        assert isinstance(action, types.CodeAction)
        assert action.edit is not None
        (edit,) = edits_of(action.edit)
        assert edit.text_document.uri == uri
        assert edit.text_document.version == 1  # the open text's version it was made on
        return apply_edits(SUITE, edit.edits)

    assert edited("Remove tag 'billing' from 2 scenarios") == SUITE.replace(
        "tags: [billing, reviewed]", "tags: [reviewed]"
    ).replace("tags: [billing]", "tags: []")
    deleted = edited("Delete 2 scenarios")
    assert (
        deleted
        == SUITE[: SUITE.index("  - name: refund")] + SUITE[SUITE.index("  - name: opening") :]
    )
    assert "    status: draft\n" in edited("Mark 2 scenarios draft")
    prompt = by_title["Add tag…"]
    nested = prompt.command if isinstance(prompt, types.Command) else prompt.command.command
    assert "checkspec.curate.pickTag" in str(nested)
    assert str([uri, [0, 1]]) in str(nested) or isinstance(prompt, types.CodeAction)


async def test_the_curate_command_answers_a_workspace_edit(
    client: LanguageClient, workspace: Path
) -> None:
    path = workspace / "commanded.suite.yaml"
    uri = open_file(client, path, SUITE)
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="checkspec.curate",
            arguments=[uri, [0, 2], "comment", "looks right"],
        )
    )
    (edit,) = answer["documentChanges"]
    assert edit["textDocument"] == {"uri": uri, "version": 1} and edit["edits"]
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="checkspec.curate",
            arguments=[uri, [1], "move", str(workspace / "moved.suite.yaml")],
        )
    )
    kinds = [change.get("kind", "edit") for change in answer["documentChanges"]]
    assert kinds == ["create", "edit", "edit"]


TARGET_ON_DISK = """\
name: target
scenarios:
  - name: saved one
    steps: []
"""

TARGET_UNSAVED = (
    TARGET_ON_DISK
    + """\
  # typed, not saved
  - name: unsaved one
    steps: []
"""
)


async def test_a_move_into_an_open_file_edits_its_unsaved_text(
    client: LanguageClient, workspace: Path
) -> None:
    source = open_file(client, workspace / "from.suite.yaml", SUITE)
    target_path = workspace / "into.suite.yaml"
    target_path.write_text(TARGET_ON_DISK)
    target = open_file(client, target_path, TARGET_ON_DISK)
    change_file(client, target, TARGET_UNSAVED, 7)  # the editor's text, not the disk's
    raw = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="checkspec.curate", arguments=[source, [2], "move", "into.suite.yaml"]
        )
    )
    answer = converter.structure(raw, types.WorkspaceEdit)
    by_uri = {e.text_document.uri: e for e in edits_of(answer)}
    assert by_uri[target].text_document.version == 7
    assert by_uri[source].text_document.version == 1
    moved = apply_edits(TARGET_UNSAVED, by_uri[target].edits)
    assert moved.startswith(TARGET_UNSAVED)  # appended after the unsaved scenario
    assert "  - name: opening hours\n" in moved[len(TARGET_UNSAVED) :]
    assert target_path.read_text() == TARGET_ON_DISK  # nothing written: the editor applies it
    assert "opening hours" not in apply_edits(SUITE, by_uri[source].edits)


async def test_the_tags_of_the_workspace_for_a_picker(client: LanguageClient) -> None:
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.listTags", arguments=[])
    )
    assert answer["billing"] >= 2 and answer["fr"] == 1


AGENT = """\
def answer(question):
    return "echo: " + question
"""

RECORDING = """\
name: recorded here
target: python:rec_agent:answer
scenarios:
  # kept as it is
  - name: never recorded
    steps:
      - interacts: [{inputs: hello}]
        checks: [{kind: string_matching, keyword: echo}]
  - name: recorded long ago
    steps:
      - interacts:
          - inputs: bye
            outputs: "goodbye"   # stale
        checks: [{kind: string_matching, keyword: echo}]
"""


async def code_actions(client: LanguageClient, uri: str, line: int) -> dict[str, Any]:
    at = types.Position(line=line, character=4)
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=at, end=at),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    return {a.title: a for a in found or []}


async def test_record_outputs_from_the_target_runs_it_and_applies_an_edit(
    client: LanguageClient, workspace: Path
) -> None:
    (workspace / "rec_agent.py").write_text(AGENT)
    path = workspace / "recording.suite.yaml"
    uri = open_file(client, path, RECORDING)
    # Offered on a scenario, and on the file's head for all of its scenarios.
    on_one = await code_actions(client, uri, position_of(RECORDING, "never recorded").line)
    assert "Record outputs from the target" in on_one, list(on_one)
    on_file = await code_actions(client, uri, 0)
    assert list(on_file) == ["Record outputs from the target (2 scenarios of the file)"]
    # A file without a target replays: nothing to record from.
    replay = open_file(client, workspace / "replay.suite.yaml", SUITE)
    assert not [t for t in await code_actions(client, replay, 2) if t.startswith("Record")]

    APPLIED.clear()
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.recordOutputs", arguments=[uri, [0, 1]])
    )
    assert answer["recorded"] == 2 and answer["applied"] is True, answer
    (drift,) = answer["drifts"]
    assert drift["scenario"] == "recorded long ago" and "+echo: bye" in drift["diff"]
    (asked,) = APPLIED
    (edit,) = edits_of(asked.edit)
    assert edit.text_document.uri == uri and edit.text_document.version == 1
    recorded = apply_edits(RECORDING, edit.edits)
    assert recorded == RECORDING.replace(
        "[{inputs: hello}]", '[{inputs: hello, outputs: "echo: hello"}]'
    ).replace('outputs: "goodbye"', 'outputs: "echo: bye"'), recorded
    assert path.read_text() == RECORDING  # the editor applies it (and can undo it)


async def test_record_outputs_refuses_what_it_cannot_record(
    client: LanguageClient, workspace: Path
) -> None:
    replay = open_file(client, workspace / "replay2.suite.yaml", SUITE)
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.recordOutputs", arguments=[replay, [0]])
    )
    assert "nothing to record" in answer["error"]
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.recordOutputs", arguments=[replay])
    )
    assert "takes [uri, [scenario indexes]]" in answer["error"]
