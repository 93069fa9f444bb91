"""The language server's error paths, end to end over stdio.

tests/support/faulty_server.py starts the real server with one fault: the analysis of a document
containing FAULT raises. Every handler must log that error (window/logMessage) and
answer empty, the document's diagnostics must still be published (empty, so stale ones
go), and every other document must be served as before.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.lsp_helpers import (
    diagnostics,
    open_file,
    position_of,
    start_session,
)
from tests.support.paths import REPO
from tests.support.spec_texts import MISSPELT

pytestmark = pytest.mark.asyncio(loop_scope="module")

FAULTY = ClientServerConfig(
    server_command=[sys.executable, str(REPO / "tests" / "support" / "faulty_server.py")]
)
BROKEN = """
# FAULT: the analysis of this document raises
name: broken analysis
steps:
  - interacts:
      - inputs: hi
        outputs: hello
    checks:
      - kind: string_matching
        keyword: hello
"""


@pytest_lsp.fixture(scope="module", config=FAULTY)
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    workspace = tmp_path_factory.mktemp("faulty")
    await start_session(lsp_client, workspace, options={})
    yield
    await lsp_client.shutdown_session()


def errors_since(client: LanguageClient, start: int) -> list[str]:
    return [
        m.message
        for m in client.log_messages[start:]
        if m.type == types.MessageType.Error and "injected analysis fault" in m.message
    ]


async def test_a_crashed_analysis_is_logged_and_published_empty_and_others_still_served(
    client: LanguageClient, tmp_path: Path
) -> None:
    start = len(client.log_messages)
    broken = open_file(client, tmp_path / "broken.scenario.yaml", BROKEN)
    assert await diagnostics(client, broken) == []
    (logged,) = errors_since(client, start)
    assert logged.startswith(f"checkspec: analysing {broken} failed:")
    assert "Traceback" in logged and "RuntimeError" in logged

    fine = open_file(client, tmp_path / "fine.scenario.yaml", MISSPELT)
    (found,) = await diagnostics(client, fine, lambda d: len(d) > 0)
    assert found.code == "unknown-kind"


async def test_every_request_on_a_crashing_document_is_logged_and_answered_empty(
    client: LanguageClient, tmp_path: Path
) -> None:
    uri = open_file(client, tmp_path / "requests.scenario.yaml", BROKEN)
    await diagnostics(client, uri)
    document = types.TextDocumentIdentifier(uri)
    where = position_of(BROKEN, "string_matching")
    start = len(client.log_messages)

    hover = await client.text_document_hover_async(types.HoverParams(document, where))
    completion = await client.text_document_completion_async(
        types.CompletionParams(document, where)
    )
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(document))
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(document))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            document, types.Range(where, where), types.CodeActionContext(diagnostics=[])
        )
    )
    run = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runScenario", arguments=[uri, 0])
    )

    assert hover is None
    assert completion is None or list(getattr(completion, "items", completion)) == []
    assert not symbols and not lenses and not actions
    assert run == {"error": "the run failed; see the checkspec log"}
    logged = errors_since(client, start)
    assert len(logged) == 6
    assert [m.split(" failed:")[0] for m in logged] == [
        "checkspec: hover",
        "checkspec: completion",
        "checkspec: document_symbol",
        "checkspec: code_lens",
        "checkspec: code_action",
        "checkspec: run_scenario",
    ]


async def test_the_fixed_text_is_analysed_again(client: LanguageClient, tmp_path: Path) -> None:
    uri = open_file(client, tmp_path / "fixed.scenario.yaml", BROKEN)
    assert await diagnostics(client, uri) == []
    fixed = BROKEN.replace("FAULT", "fixed").replace("string_matching", "string_matchng")
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    (found,) = await diagnostics(client, uri, lambda d: len(d) > 0)
    assert found.code == "unknown-kind"
