"""Navigation and refactoring over stdio: go to definition (custom checks, targets, `fn`),
document links, references and rename of custom checks across the workspace."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.lsp_helpers import (
    apply_edits,
    change_file,
    diagnostics,
    open_file,
    position_of,
    start_session,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"])

CONFIG = """
custom_checks:
  - identifier: custom_polite
    params: {type: string_matching, keyword: please}
  - identifier: custom_other
    params: {type: string_matching, keyword: thanks}
"""

AGENT = '''
"""An agent nobody may import: importing it would fail the test."""
raise SystemExit("imported!")


class Bot:
    def reply(self, inputs):
        return "ok"


@staticmethod
def helper():
    pass


async def answer(question):
    return "please"
'''

SCENARIO = """
name: polite
target: python:agent:answer
steps:
  - interacts:
      - inputs: hi
    checks:
      - kind: custom_polite
      - kind: fn
        fn: agent:helper
      - kind: not
        check: {kind: custom_polite}
"""

SUITE = """
name: more
scenarios:
  - name: a
    steps:
      - interacts: [{inputs: hi, outputs: please}]
        checks:
          - kind: custom_polite
          - kind: string_matching
            keyword: please
"""

DATASET_LINE = (
    '{"interactions": [{"input": {"messages": [{"role": "user", "content": "hi"}]}, '
    '"checks": [{"identifier": "custom_polite"}]}]}\n'
)


def dedented(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("nav")
    (root / "checkspec.yaml").write_text(dedented(CONFIG))
    (root / "agent.py").write_text(dedented(AGENT))
    (root / "suites").mkdir()
    (root / "suites" / "more.suite.yaml").write_text(dedented(SUITE))  # never opened
    (root / "lines.dataset.jsonl").write_text(DATASET_LINE)  # never opened
    return root


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    await start_session(lsp_client, workspace)
    yield
    await lsp_client.shutdown_session()


def at(uri: str, text: str, needle: str, offset: int = 1) -> types.TextDocumentPositionParams:
    return types.TextDocumentPositionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=position_of(text, needle, offset),
    )


async def definition(client: LanguageClient, uri: str, text: str, needle: str):
    where = at(uri, text, needle)
    result = await client.text_document_definition_async(
        types.DefinitionParams(text_document=where.text_document, position=where.position)
    )
    assert isinstance(result, list)
    return result


async def test_custom_check_leads_to_its_entry_in_checkspec_yaml(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "polite.scenario.yaml", SCENARIO)
    (found,) = await definition(client, uri, SCENARIO, "custom_polite")
    assert found.uri == (workspace / "checkspec.yaml").as_uri()
    start = position_of(CONFIG, "custom_polite")
    assert found.range.start == start
    assert found.range.end.character == start.character + len("custom_polite")


async def test_target_and_fn_lead_to_the_def_line_without_importing_the_module(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "polite2.scenario.yaml", SCENARIO)
    (target,) = await definition(client, uri, SCENARIO, "python:agent:answer")
    assert target.uri == (workspace / "agent.py").as_uri()
    assert target.range.start == position_of(AGENT, "answer(question)")
    (fn,) = await definition(client, uri, SCENARIO, "agent:helper")
    assert fn.range.start == position_of(AGENT, "helper()")
    # A built-in kind leads nowhere (and the server is still alive: the agent was not run).
    assert await definition(client, uri, SCENARIO, "kind: not") == []


async def test_target_links_open_the_function(client: LanguageClient, workspace: Path) -> None:
    uri = open_file(client, workspace / "polite3.scenario.yaml", SCENARIO)
    links = await client.text_document_document_link_async(
        types.DocumentLinkParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert links is not None
    targets = sorted(link.target or "" for link in links)
    agent = (workspace / "agent.py").as_uri()
    line_of = {name: position_of(AGENT, name).line + 1 for name in ("answer(", "helper(")}
    assert targets == sorted([f"{agent}#L{line_of['answer(']}", f"{agent}#L{line_of['helper(']}"])


async def test_references_cover_the_workspace_including_closed_files(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "refs.scenario.yaml", SCENARIO)
    where = at(uri, SCENARIO, "custom_polite")
    found = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=where.text_document,
            position=where.position,
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert found is not None
    by_file: dict[str, int] = {}
    for location in found:
        name = location.uri.rsplit("/", 1)[-1]
        by_file[name] = by_file.get(name, 0) + 1
    assert by_file["checkspec.yaml"] == 1
    assert by_file["refs.scenario.yaml"] == 2  # the nested `not` check counts
    assert by_file["more.suite.yaml"] == 1
    assert by_file["lines.dataset.jsonl"] == 1


async def test_rename_edits_every_file_and_refuses_built_in_kinds(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "rename.scenario.yaml", SCENARIO)
    builtin = at(uri, SCENARIO, "kind: not", offset=6)
    refused = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=builtin.text_document, position=builtin.position)
    )
    assert refused is None
    where = at(uri, SCENARIO, "custom_polite")
    prepared = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=where.text_document, position=where.position)
    )
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "custom_polite"

    edit = await client.text_document_rename_async(
        types.RenameParams(
            text_document=where.text_document, position=where.position, new_name="custom_kind"
        )
    )
    assert edit is not None and edit.changes is not None
    suite = workspace / "suites" / "more.suite.yaml"
    renamed = apply_edits(suite.read_text(), edit.changes[suite.as_uri()])
    assert "kind: custom_kind" in renamed and "custom_polite" not in renamed
    config = workspace / "checkspec.yaml"
    renamed_config = apply_edits(config.read_text(), edit.changes[config.as_uri()])
    assert "identifier: custom_kind" in renamed_config
    assert "identifier: custom_other" in renamed_config
    assert len(edit.changes[uri]) == 2
    assert (workspace / "lines.dataset.jsonl").as_uri() in edit.changes

    # A name that is not a custom identifier, or one already taken, is refused.
    for bad in ("polite", "custom_other"):
        refused_edit = await client.text_document_rename_async(
            types.RenameParams(
                text_document=where.text_document, position=where.position, new_name=bad
            )
        )
        assert refused_edit is None


# Snippets and the missing-parameters fix ---------------------------------------------------

CHECKS = """
name: snippets
steps:
  - interacts:
      - inputs: hi
        outputs: hello
    checks:
      - kind: rego_policy
      - {kind: not}
      - kind: TYPED
""".replace("TYPED", "")  # the cursor after `kind: `


async def test_choosing_a_kind_writes_its_required_parameters_as_tab_stops(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "snippets.scenario.yaml", CHECKS)
    where = at(uri, CHECKS, "      - kind: \n", offset=14)  # the line ends with a space
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=where.text_document,
            position=where.position,
            context=types.CompletionContext(
                trigger_kind=types.CompletionTriggerKind.TriggerCharacter, trigger_character=" "
            ),
        )
    )
    assert isinstance(result, types.CompletionList)
    by_label = {item.label: item for item in result.items}
    rego = by_label["rego_policy"]
    assert rego.insert_text_format == types.InsertTextFormat.Snippet
    assert isinstance(rego.text_edit, types.TextEdit)
    assert rego.text_edit.new_text == (
        "rego_policy\n        policy: ${1:TODO}\n        rule: ${2:TODO}$0"
    )
    # A check with nothing required stays plain text.
    assert by_label["json_valid"].insert_text_format == types.InsertTextFormat.PlainText
    assert by_label["custom_polite"].insert_text_format == types.InsertTextFormat.PlainText


async def test_a_quick_fix_adds_the_missing_required_parameters(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "missing.scenario.yaml", CHECKS)
    everything = types.Range(types.Position(0, 0), types.Position(20, 0))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=everything,
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions is not None
    titles = [a.title for a in actions if isinstance(a, types.CodeAction)]
    assert titles.count("Add 'policy', 'rule'") == 1
    assert "Add 'check'" in titles
    edits = [
        e
        for a in actions
        if isinstance(a, types.CodeAction) and a.edit and a.edit.changes
        for e in a.edit.changes[uri]
    ]
    fixed = apply_edits(dedented(CHECKS), edits)
    assert "      - kind: rego_policy\n        policy: TODO\n        rule: TODO\n" in fixed
    assert "      - {kind: not, check: {kind: string_matching, keyword: TODO}}\n" in fixed


# Typing below a check; a trace path that points nowhere ------------------------------------

BELOW = """
name: below
steps:
  - interacts:
      - inputs: hi
        outputs: {answer: hello}
    checks:
      - kind: equals
        target_key: trace.last.outputs.answr
      INDENT
"""


async def test_completion_on_the_line_enter_leaves_below_a_check_offers_its_parameters(
    client: LanguageClient, workspace: Path
) -> None:
    uri = open_file(client, workspace / "below.scenario.yaml", BELOW)
    # The line Enter leaves keeps the indentation of the line above: up to its `-`.
    change_file(client, uri, dedented(BELOW).replace("      INDENT", " " * 6), version=2)
    position = types.Position(line=8, character=6)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position
        )
    )
    assert isinstance(result, types.CompletionList)
    first = min(result.items, key=lambda item: item.sort_text or "")
    assert first.label == "expected_value"
    assert isinstance(first.text_edit, types.TextEdit)
    assert first.text_edit.new_text == "  expected_value: "


async def test_a_trace_path_missing_from_the_recording_is_a_warning_with_a_fix(
    client: LanguageClient, workspace: Path
) -> None:
    text = BELOW.replace("      INDENT\n", "        expected_value: hello\n")
    uri = open_file(client, workspace / "answr.scenario.yaml", text)
    found = await diagnostics(client, uri, lambda d: len(d) > 0)
    (warning,) = [d for d in found if d.code == "unresolved-trace-path"]
    assert warning.severity == types.DiagnosticSeverity.Warning
    assert "did you mean 'answer'?" in warning.message
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=warning.range,
            context=types.CodeActionContext(diagnostics=[warning]),
        )
    )
    assert actions is not None
    (action,) = [a for a in actions if isinstance(a, types.CodeAction)]
    assert action.edit is not None and action.edit.changes is not None
    fixed = apply_edits(dedented(text), action.edit.changes[uri])
    assert "target_key: trace.last.outputs.answer\n" in fixed
