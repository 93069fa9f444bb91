"""The language server end to end: a real client over stdio (`python -m checkspec.server`).

One server serves the module (starting one takes about a second); each test opens its own
files under a temporary workspace.
"""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.support.lsp_helpers import (
    SERVER,
    apply_edits,
    change_file,
    complete,
    diagnostics,
    open_file,
    position_of,
    start_session,
)
from tests.support.spec_texts import MISSPELT

pytestmark = pytest.mark.asyncio(loop_scope="module")

MAX_FILE_SIZE = 200_000  # set through initializationOptions, so "huge" stays quick


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("workspace")


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    await start_session(lsp_client, workspace, options={"maxFileSize": MAX_FILE_SIZE})
    yield
    await lsp_client.shutdown_session()


# Helpers ---------------------------------------------------------------------------------


RECORDED = """
name: recorded
steps:
  - interacts:
      - inputs: Where is my order?
        outputs: {answer: It ships tomorrow, score: 0.8}
    checks:
      - kind: string_matching
        target_key: trace.last.outputs.answer
        keyword: tomorrow
      - kind: greater_than
        target_key: trace.last.outputs.score
        expected_value: 0.9
"""


# Diagnostics and quick fixes -------------------------------------------------------------


async def test_misspelt_kind_is_reported_at_its_value_and_clears_after_the_fix(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "misspelt.scenario.yaml", MISSPELT)
    (found,) = await diagnostics(client, uri, lambda d: len(d) > 0)
    start = position_of(MISSPELT, "string_matchng")
    assert found.range == types.Range(
        start=start, end=types.Position(line=start.line, character=start.character + 14)
    )
    assert found.message == "unknown check 'string_matchng'; did you mean 'string_matching'?"
    assert (found.code, found.source, found.severity) == (
        "unknown-kind",
        "checkspec",
        types.DiagnosticSeverity.Error,
    )

    fixed = textwrap.dedent(MISSPELT).lstrip("\n").replace("string_matchng", "string_matching")
    change_file(client, uri, fixed, version=2)
    assert await diagnostics(client, uri) == []


async def test_quick_fix_renames_the_misspelt_kind(client: LanguageClient, workspace: Path) -> None:
    uri = open_file(client, workspace / "fixme.scenario.yaml", MISSPELT)
    (problem,) = await diagnostics(client, uri, lambda d: len(d) > 0)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=problem.range,
            context=types.CodeActionContext(diagnostics=[problem]),
        )
    )
    assert actions is not None
    (action,) = actions
    assert isinstance(action, types.CodeAction)
    assert action.title == "Change to 'string_matching'"
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.edit is not None and action.edit.changes is not None
    fixed = apply_edits(textwrap.dedent(MISSPELT).lstrip("\n"), action.edit.changes[uri])
    assert "kind: string_matching\n" in fixed

    change_file(client, uri, fixed, version=2)
    assert await diagnostics(client, uri) == []


async def test_problem_after_an_emoji_is_placed_in_utf16_columns(
    client: LanguageClient, workspace: Path
) -> None:
    text = """
    name: party
    steps:
      - interacts:
          - {inputs: hi, outputs: "🎉 ok"}
        checks:
          - {keyword: "🎉", kind: string_matchng}
    """
    uri = open_file(client, workspace / "emoji.scenario.yaml", text)
    (found,) = await diagnostics(client, uri, lambda d: len(d) > 0)
    line = textwrap.dedent(text).lstrip("\n").split("\n")[5]
    code_points = line.index("string_matchng")
    assert found.range.start == types.Position(line=5, character=code_points + 1)  # 🎉 = 2 units
    assert found.range.end.character == code_points + 1 + len("string_matchng")


async def test_a_custom_check_defined_in_an_open_checkspec_yaml_is_known_at_once(
    client: LanguageClient, tmp_path: Path
) -> None:
    scenario = """
    name: custom
    steps:
      - interacts:
          - {inputs: hi, outputs: hello}
        checks:
          - kind: custom_greets
    """
    uri = open_file(client, tmp_path / "custom.scenario.yaml", scenario)
    (found,) = await diagnostics(client, uri, lambda d: len(d) > 0)
    assert found.code == "unknown-custom-check"
    client.diagnostics.pop(uri)

    # On disk the workspace has no custom check; the unsaved text in the editor has one.
    (tmp_path / "checkspec.yaml").write_text("custom_checks: []\n", encoding="utf-8")
    config = """
    custom_checks:
      - identifier: custom_greets
        params: {type: string_matching, keyword: hello}
    """
    open_file(client, tmp_path / "checkspec.yaml", config, save=False)
    assert await diagnostics(client, uri, lambda d: not d) == []


async def test_a_checkspec_yaml_changed_outside_the_editor_is_picked_up(
    client: LanguageClient, tmp_path: Path
) -> None:
    scenario = """
    name: custom
    steps:
      - interacts:
          - {inputs: hi, outputs: hello}
        checks:
          - kind: custom_waves
    """
    uri = open_file(client, tmp_path / "waves.scenario.yaml", scenario)
    (found,) = await diagnostics(client, uri, lambda d: len(d) > 0)
    assert found.code == "unknown-custom-check"
    client.diagnostics.pop(uri)

    config = tmp_path / "checkspec.yaml"
    config.write_text(
        "custom_checks:\n  - identifier: custom_waves\n    params: {type: string_matching, keyword: hello}\n",
        encoding="utf-8",
    )
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Created)]
        )
    )
    assert await diagnostics(client, uri) == []


async def test_editor_settings_change_applies_to_open_documents(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "settings.scenario.yaml", RECORDED)
    assert await diagnostics(client, uri) == []
    client.diagnostics.pop(uri)
    try:
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"checkspec": {"maxFileSize": 100}})
        )
        (found,) = await diagnostics(client, uri, lambda d: len(d) > 0)
        assert found.code == "too-large"
        assert "100 bytes" in found.message
    finally:
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"checkspec": {"maxFileSize": MAX_FILE_SIZE}}
            )
        )
    client.diagnostics.pop(uri, None)
    assert await diagnostics(client, uri) == []


# Completion and hover --------------------------------------------------------------------


async def test_completion_of_kinds_parameters_values_and_trace_paths(
    client: LanguageClient, workspace: Path
) -> None:
    text = """
    name: typing
    steps:
      - interacts:
          - inputs: Where is my order?
            outputs: {answer: It ships tomorrow, score: 0.8}
        checks:
          - kind: string_matching
            keyword: tomorrow
            normalization_form: NF
            target_key: trace.last.outputs.
          - kind: regex
    """
    uri = open_file(client, workspace / "typing.scenario.yaml", text)
    await diagnostics(client, uri)

    kinds = await complete(client, uri, position_of(text, "regex", 5))
    assert {"regex_matching", "string_matching", "toxicity"} <= set(kinds)

    values = await complete(client, uri, position_of(text, "NF", 2))
    assert values == ["NFC", "NFD", "NFKC", "NFKD"]

    paths = await complete(client, uri, position_of(text, "outputs.\n", 8))
    assert paths == ["answer", "score"]  # the keys this scenario recorded

    # A key being typed on its own line breaks the YAML; completion still knows the place.
    typing = text.replace("keyword: tomorrow\n", "keyword: tomorrow\n            cas\n")
    change_file(client, uri, textwrap.dedent(typing).lstrip("\n"), version=2)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position_of(typing, "cas", 3),
        )
    )
    assert isinstance(result, types.CompletionList)
    by_label = {item.label: item for item in result.items}
    assert "keyword" not in by_label  # already written
    case = by_label["case_sensitive"]
    assert case.text_edit is not None and case.text_edit.new_text == "case_sensitive: "
    assert isinstance(case.documentation, types.MarkupContent)
    assert "Whether matching is case-sensitive." in case.documentation.value
    # ...and recorded keys come from the last text that parsed.
    assert await complete(client, uri, position_of(typing, "outputs.\n", 8)) == ["answer", "score"]


async def test_hover_on_a_kind_shows_how_to_write_it_and_its_parameters(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "hover.scenario.yaml", RECORDED)
    await diagnostics(client, uri)
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position_of(RECORDED, "string_matching", 3),
        )
    )
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    assert "```yaml\n- kind: string_matching\n  keyword: TODO\n```" in found.contents.value
    assert "- `keyword` *string*, **required**" in found.contents.value

    on_path = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position_of(RECORDED, "trace.last.outputs.answer", 3),
        )
    )
    assert on_path is not None and isinstance(on_path.contents, types.MarkupContent)
    assert '"It ships tomorrow"' in on_path.contents.value


# Symbols and lenses ----------------------------------------------------------------------


SUITE = """
name: support
scenarios:
  - name: good
    steps:
      - interacts:
          - {inputs: hi, outputs: hello}
        checks:
          - kind: string_matching
            keyword: hello
  - name: broken
    steps:
      - checks:
          - kind: nope
"""


async def test_document_symbols_nest_scenarios_steps_and_checks(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "symbols.suite.yaml", SUITE)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert symbols is not None
    outline = [
        (s.name, [(step.name, [c.name for c in step.children or []]) for step in s.children or []])
        for s in symbols
        if isinstance(s, types.DocumentSymbol)
    ]
    assert outline == [
        ("good", [("step 1", ["string_matching"])]),
        ("broken", [("step 1", ["nope"])]),
    ]


async def test_code_lenses_run_runnable_scenarios_and_say_why_others_cannot_run(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "lenses.suite.yaml", SUITE)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert lenses is not None
    shown = [
        (lens.range.start.line, lens.command.title, list(lens.command.arguments or []))
        for lens in lenses
        if lens.command
    ]
    assert shown == [
        (0, "▶ Run all (1 of 2)", [uri]),
        (2, "▶ Run scenario", [uri, 0]),
        (9, "⚠ not runnable: unknown check 'nope'", [uri, 1]),  # `broken` says why instead
    ]


# Runs ------------------------------------------------------------------------------------


async def test_running_a_replayed_scenario_reports_the_failing_check_at_its_line(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "run.scenario.yaml", RECORDED)
    await diagnostics(client, uri)
    summary = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runScenario", arguments=[uri, 0])
    )
    assert summary["scenario"] == "recorded"
    assert summary["status"] == "fail"
    assert summary["replayed"] is True
    greater = position_of(RECORDED, "greater_than")
    assert [(c["line"], c["status"]) for c in summary["checks"]] == [
        (position_of(RECORDED, "string_matching").line, "pass"),
        (greater.line, "fail"),
    ]

    published = await diagnostics(
        client, uri, lambda d: any(x.source == "checkspec run" for x in d)
    )
    (failure,) = [d for d in published if d.code == "check-fail"]
    assert failure.range.start == greater
    assert failure.message.startswith("greater_than failed: ")
    assert failure.message.removeprefix("greater_than failed: ") == summary["checks"][1]["message"]
    assert any(d.code == "scenario-fail" and d.range.start.line == 0 for d in published)

    change_file(client, uri, textwrap.dedent(RECORDED).lstrip("\n") + "# edited\n", version=2)
    assert await diagnostics(client, uri) == []  # run findings do not outlive the text


async def test_running_a_scenario_calls_its_python_target(
    client: LanguageClient, tmp_path: Path
) -> None:
    # It prints and reads stdin: neither may touch the JSON-RPC stream on stdio.
    (tmp_path / "lsp_target_agent.py").write_text(
        "import sys\n\n"
        "def answer(question):\n"
        "    print('Content-Length: 5\\r\\n\\r\\nnoise')\n"
        "    sys.stdin.read()\n"
        "    return f'You asked: {question}'\n",
        encoding="utf-8",
    )
    text = """
    name: live
    target: python:lsp_target_agent:answer
    steps:
      - interacts:
          - inputs: refunds?
        checks:
          - kind: string_matching
            keyword: "You asked: refunds?"
          - kind: string_matching
            keyword: never said
    """
    uri = open_file(client, tmp_path / "live.scenario.yaml", text)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runFile", arguments=[uri])
    )
    (summary,) = result["scenarios"]
    assert (result["status"], summary["replayed"]) == ("fail", False)
    assert [c["status"] for c in summary["checks"]] == ["pass", "fail"]
    published = await diagnostics(client, uri, lambda d: any(x.code == "check-fail" for x in d))
    (failure,) = [d for d in published if d.code == "check-fail"]
    assert failure.range.start.line == position_of(text, "never said").line - 1
    assert "never said" in failure.message


async def test_a_slow_run_does_not_hold_up_other_requests(
    client: LanguageClient, tmp_path: Path
) -> None:
    # The target answers once the test lets it (a file appears): no clock decides whether
    # the run is still going when the hover is answered. (If the server blocked on the
    # run, the hover would wait for it: the target gives up after 60 s so the test fails.)
    started, release = tmp_path / "started", tmp_path / "release"
    (tmp_path / "lsp_slow_agent.py").write_text(
        "import pathlib, time\n\n"
        "def answer(question):\n"
        f"    pathlib.Path({str(started)!r}).touch()\n"
        "    for _ in range(6000):\n"
        f"        if pathlib.Path({str(release)!r}).exists():\n"
        "            break\n"
        "        time.sleep(0.01)\n"
        "    return 'done'\n",
        encoding="utf-8",
    )
    text = """
    name: slow
    target: python:lsp_slow_agent:answer
    steps:
      - interacts:
          - inputs: take your time
        checks:
          - kind: string_matching
            keyword: done
    """
    uri = open_file(client, tmp_path / "slow.scenario.yaml", text)
    run = asyncio.ensure_future(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="checkspec.runScenario", arguments=[uri, 0])
        )
    )
    while not started.exists():  # the run is waiting on the target
        await asyncio.sleep(0.01)
    found = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(text, "string_matching"))
    )
    assert found is not None and not run.done()
    release.touch()
    summary = await run
    assert summary["status"] == "pass"


# Robustness ------------------------------------------------------------------------------


async def test_garbage_binary_huge_and_deep_documents_do_not_take_the_server_down(
    client: LanguageClient, workspace: Path
) -> None:
    documents = {
        "binary.scenario.yaml": "\x00\x01\x02\xff\ufffd garbage: [\x00",
        "garbage.scenario.yaml": "}{][: - - :\n\t\tkind: ?\n" * 50,
        "huge.suite.yaml": "name: big\nscenarios:\n" + "  - name: x\n" * (MAX_FILE_SIZE // 10),
        "deep.scenario.yaml": "a: " + "[" * 5000 + "]" * 5000,
        "deep.scenario.json": "{" + '"a": {' * 3000 + "}" * 3001,
    }
    uris = []
    for name, text in documents.items():
        uri = (workspace / name).as_uri()
        uris.append(uri)
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text))
        )
    for uri in uris:
        assert await diagnostics(client, uri, lambda d: len(d) > 0)
        identifier = types.TextDocumentIdentifier(uri=uri)
        for line in (0, 1, 99999):
            pos = types.Position(line=line, character=3)
            await client.text_document_completion_async(types.CompletionParams(identifier, pos))
            await client.text_document_hover_async(types.HoverParams(identifier, pos))
        await client.text_document_document_symbol_async(types.DocumentSymbolParams(identifier))
        await client.text_document_code_lens_async(types.CodeLensParams(identifier))
    huge = client.diagnostics[uris[2]]
    assert [d.code for d in huge] == ["too-large"]
    errors = [m.message for m in client.log_messages if m.type == types.MessageType.Error]
    assert errors == []  # handled as input, not caught as crashes

    # Still answering, correctly.
    uri = open_file(client, workspace / "after.scenario.yaml", MISSPELT)
    (found,) = await diagnostics(client, uri, lambda d: len(d) > 0)
    assert found.code == "unknown-kind"


async def test_a_bad_command_argument_is_an_error_answer_not_a_crash(
    client: LanguageClient,
) -> None:
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runScenario", arguments=["nope"])
    )
    assert "error" in answer
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="checkspec.runFile", arguments=["file:///nowhere.scenario.yaml"]
        )
    )
    assert "error" in answer


# Position encodings ----------------------------------------------------------------------


async def test_utf32_is_chosen_when_the_client_offers_it(tmp_path: Path) -> None:
    client: Any = await SERVER.start()
    capabilities = client_capabilities("neovim")
    assert capabilities.text_document is not None
    capabilities.text_document.diagnostic = None  # pushed: pulling is tested on its own
    try:
        result = await client.initialize_session(types.InitializeParams(capabilities=capabilities))
        assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf32
        text = 'name: x\nsteps:\n  - checks:\n      - {keyword: "🎉", kind: string_matchng}\n'
        path = tmp_path / "utf32.scenario.yaml"
        uri = path.as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text))
        )
        (found,) = await diagnostics(client, uri, lambda d: len(d) > 0)
        assert found.range.start.character == text.split("\n")[3].index("string_matchng")
    finally:
        await client.shutdown_session()  # (stopping without it hangs the test client)
        await client.stop()
