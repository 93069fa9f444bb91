"""Run on save in the server (`checkspec.runOnSave`: off | scenario | file), for every
editor, over stdio with a real client: read from initializationOptions, pushed with
didChangeConfiguration, and pulled with workspace/configuration.

`file` runs every scenario of the saved file; `scenario` the one holding the last edit;
`off` nothing.
"""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.lsp_helpers import start_session

# One server, in sequence: pytest-random-order keeps this module's order (tests change the
# server's runOnSave setting, by push, by pull, or rely on the one it started with); the
# module itself is shuffled among the others.
pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.random_order(disabled=True),
]

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"])
FINISHED: list[Any] = []  # checkspec/scenarioFinished notifications, in arrival order


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("on_save")
    (folder / "agents_save.py").write_text("def ok(question):\n    return 'ok'\n")
    return folder


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    @lsp_client.feature("checkspec/scenarioFinished")
    def finished(params: Any) -> None:
        FINISHED.append(params)

    result, _ = await start_session(lsp_client, workspace, options={"runOnSave": "file"})
    lsp_client.sync = result.capabilities.text_document_sync  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


SUITE = """
name: saved
target: python:agents_save:ok
scenarios:
  - name: first
    steps:
      - interacts: [{inputs: hello}]
        checks:
          - {kind: string_matching, keyword: "ok"}
  - name: second
    steps:
      - interacts: [{inputs: hello}]
        checks:
          - {kind: string_matching, keyword: "ok"}
  - name: third
    steps:
      - interacts: [{inputs: hello}]
        checks:
          - {kind: string_matching, keyword: "ok"}
"""


def _open(client: LanguageClient, workspace: Path, name: str) -> str:
    path = workspace / name
    text = textwrap.dedent(SUITE).lstrip("\n")
    path.write_text(text, encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(path.as_uri(), "yaml", 1, text))
    )
    return path.as_uri()


def _save(client: LanguageClient, uri: str) -> None:
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri))
    )


def _edit_line(client: LanguageClient, uri: str, line: int, version: int = 2) -> None:
    """Insert a space at the end of a line (a change the server records as the last edit)."""
    at = types.Position(line=line, character=200)  # past the end: clamped to it
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=uri),
            [types.TextDocumentContentChangePartial(range=types.Range(at, at), text=" ")],
        )
    )


async def _finished(uri: str, count: int) -> list[str]:
    for _ in range(3000):
        found = [f.scenario for f in FINISHED if f.uri == uri]
        if len(found) >= count:
            return found
        await asyncio.sleep(0.01)
    raise AssertionError(f"only {[f.scenario for f in FINISHED if f.uri == uri]} ran")


async def _settle(client: LanguageClient, uri: str) -> None:
    """A request answered after the save (the server read it), then time for a run."""
    await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 0))
    )
    await asyncio.sleep(1.5)


async def _configure_by_pull(client: LanguageClient, **values: Any) -> None:
    """Settings pulled: a didChangeConfiguration without them makes the server ask."""
    client.set_configuration(values, section="checkspec")  # what workspace/configuration answers
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.3)


async def test_the_server_asks_for_save_notifications(client: LanguageClient) -> None:
    sync = client.sync  # type: ignore[attr-defined]
    assert isinstance(sync, types.TextDocumentSyncOptions) and sync.save


async def test_file_from_initialization_options_runs_every_scenario(
    client: LanguageClient, workspace: Path
) -> None:
    uri = _open(client, workspace, "file.suite.yaml")
    _save(client, uri)
    assert sorted(await _finished(uri, 3)) == ["first", "second", "third"]


async def test_scenario_pushed_runs_the_scenario_last_edited(
    client: LanguageClient, workspace: Path
) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"checkspec": {"runOnSave": "scenario"}})
    )
    uri = _open(client, workspace, "pushed.suite.yaml")
    _edit_line(client, uri, 10)  # in `second`
    _save(client, uri)
    assert await _finished(uri, 1) == ["second"]
    await _settle(client, uri)
    assert [f.scenario for f in FINISHED if f.uri == uri] == ["second"]


async def test_scenario_pulled_with_workspace_configuration(
    client: LanguageClient, workspace: Path
) -> None:
    await _configure_by_pull(client, runOnSave="scenario")
    uri = _open(client, workspace, "pulled.suite.yaml")
    _edit_line(client, uri, 17)  # in `third`
    _save(client, uri)
    assert await _finished(uri, 1) == ["third"]


async def test_file_pulled_with_workspace_configuration(
    client: LanguageClient, workspace: Path
) -> None:
    await _configure_by_pull(client, runOnSave="file")
    uri = _open(client, workspace, "pulled_file.suite.yaml")
    _save(client, uri)
    assert sorted(await _finished(uri, 3)) == ["first", "second", "third"]


async def test_off_pulled_runs_nothing(client: LanguageClient, workspace: Path) -> None:
    await _configure_by_pull(client, runOnSave="off")
    uri = _open(client, workspace, "off.suite.yaml")
    _edit_line(client, uri, 5)
    _save(client, uri)
    await _settle(client, uri)
    assert [f for f in FINISHED if f.uri == uri] == []


async def test_off_from_initialization_options_and_unknown_values_run_nothing(
    client: LanguageClient, workspace: Path
) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"checkspec": {"runOnSave": "always"}})
    )
    uri = _open(client, workspace, "unknown.suite.yaml")
    _save(client, uri)
    await _settle(client, uri)
    assert [f for f in FINISHED if f.uri == uri] == []
