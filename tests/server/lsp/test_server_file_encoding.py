"""A dataset saved in another encoding than UTF-8 (issue 48 item 10): the CLI refuses it
(`file is not UTF-8 text`), and the editor showed no problem at all, opened (the editor
sends the text it decoded, never the bytes) or in the workspace diagnostics (the file was
skipped). Over stdio with a real LSP client."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig

from tests.support.lsp_helpers import diagnostics, pull_capabilities, start_session, workspace_pull

pytestmark = pytest.mark.asyncio(loop_scope="function")

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"])
CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]

# Two rows; the second has "café" in Latin-1 (one byte 0xE9, not UTF-8).
ROW = (
    '{"interactions": [{"input": {"messages": [{"role": "user", "content": "%s"}]}, '
    '"output": {"response": {"role": "assistant", "content": "ok"}}, '
    '"checks": [{"identifier": "string_matching", "params": {"keyword": "ok"}}]}]}\n'
)
TEXT = ROW % "hello" + ROW % "caf\u00e9"
YAML = """name: faq
scenarios:
  - interactions:
      - input: {messages: [{role: user, content: "caf\u00e9"}]}
        output: {response: {role: assistant, content: ok}}
        checks: [{identifier: string_matching, params: {keyword: ok}}]
"""


def _encoding(found: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in found if d.code == "encoding"]


async def test_an_open_latin1_dataset_gets_the_clis_problem_until_saved_as_utf8(
    tmp_path: Path,
) -> None:
    (tmp_path / "checkspec.yaml").write_text("{}\n", encoding="utf-8")
    path = tmp_path / "faq.dataset.jsonl"
    path.write_bytes(TEXT.encode("latin-1"))
    cli = subprocess.run([*CLI, "validate", str(path)], capture_output=True, text=True)
    assert cli.returncode == 2 and "file is not UTF-8 text" in cli.stdout + cli.stderr
    client: Any = await SERVER.start()
    try:
        await start_session(client, tmp_path)
        uri = path.as_uri()
        # What an editor guessing Latin-1 sends: the right characters, no sign of bytes.
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "jsonl", 1, TEXT))
        )
        found = _encoding(await diagnostics(client, uri, lambda d: bool(_encoding(d))))
        assert len(found) == 1
        assert "not UTF-8" in found[0].message and found[0].range.start.line == 1
        assert found[0].severity == types.DiagnosticSeverity.Error
        # Saved as UTF-8 (the same text: no edit): the problem goes at the save.
        client.diagnostics.pop(uri, None)
        path.write_text(TEXT, encoding="utf-8")
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri))
        )
        await diagnostics(client, uri, lambda d: not _encoding(d))
        # And back in Latin-1: it comes back at the save.
        client.diagnostics.pop(uri, None)
        path.write_bytes(TEXT.encode("latin-1"))
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri))
        )
        await diagnostics(client, uri, lambda d: bool(_encoding(d)))
    finally:
        await client.shutdown_session()
        await client.stop()


async def test_the_workspace_diagnostics_list_an_unopened_latin1_dataset(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yaml").write_text("{}\n", encoding="utf-8")
    latin = tmp_path / "faq.dataset.yaml"
    latin.write_bytes(YAML.encode("latin-1"))
    fine = tmp_path / "fine.dataset.yaml"
    fine.write_text(YAML, encoding="utf-8")
    client: Any = await SERVER.start()
    try:
        await start_session(
            client,
            tmp_path,
            options={"diagnostics.scope": "workspace"},
            capabilities=pull_capabilities(),
            folders=True,
        )
        items = await workspace_pull(client)
        assert set(items) == {latin.as_uri(), fine.as_uri()}
        assert [d.code for d in items[fine.as_uri()].items] == []
        (problem,) = items[latin.as_uri()].items
        assert problem.code == "encoding" and "not UTF-8" in problem.message
        assert problem.range.start.line == 3
    finally:
        await client.shutdown_session()
        await client.stop()
