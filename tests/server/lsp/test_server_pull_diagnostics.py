"""Pull diagnostics (LSP 3.17) over stdio with a real client: textDocument/diagnostic,
workspace/diagnostic of unopened files read from disk, result ids, watched-file changes,
`checkspec.diagnostics.scope`, and push kept for clients that do not pull."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities

from tests.support.lsp_helpers import pull_capabilities, start_session, workspace_pull

pytestmark = pytest.mark.asyncio(loop_scope="function")

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "checkspec.server"])

GOOD = """name: good
steps:
  - interacts:
      - {inputs: hi, outputs: hello}
    checks:
      - {kind: string_matching, keyword: hello}
"""
BAD = GOOD.replace("string_matching", "string_matchng")


async def start(root: Path, options: dict[str, Any], *, pull: bool = True) -> Any:
    client: Any = await SERVER.start()
    capabilities = pull_capabilities() if pull else client_capabilities("visual-studio-code")
    client.init_result, seen = await start_session(
        client, root, options=options, capabilities=capabilities, folders=True
    )
    client.registered = seen.registrations
    return client


async def stop(client: Any) -> None:
    await client.shutdown_session()
    await client.stop()


def open_doc(client: Any, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", version, text))
    )
    return uri


def suite(root: Path, files: int, bad: set[int]) -> list[Path]:
    paths = []
    for n in range(files):
        path = root / "specs" / f"s{n}.scenario.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(BAD if n in bad else GOOD, encoding="utf-8")
        paths.append(path)
    (root / "checkspec.yaml").write_text("{}\n", encoding="utf-8")
    return paths


def codes(item: Any) -> list[str]:
    return [str(d.code) for d in item.items]


async def test_an_open_file_is_pulled_with_a_result_id_and_not_pushed(tmp_path: Path) -> None:
    suite(tmp_path, 1, set())
    client = await start(tmp_path, {})
    try:
        provider = client.init_result.capabilities.diagnostic_provider
        assert provider.workspace_diagnostics and provider.inter_file_dependencies
        uri = open_doc(client, tmp_path / "open.scenario.yaml", BAD)
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri))
        )
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        assert [d.code for d in report.items] == ["unknown-kind"]
        assert report.result_id
        again = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(
                text_document=types.TextDocumentIdentifier(uri),
                previous_result_id=report.result_id,
            )
        )
        assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
        assert again.result_id == report.result_id
        await asyncio.sleep(0.5)  # a push would have come by now (debounce: 0.15 s)
        assert uri not in client.diagnostics
        # Spec files changed on disk are watched (dynamic registration).
        methods = [r.method for r in client.registered]
        assert types.WORKSPACE_DID_CHANGE_WATCHED_FILES in methods
    finally:
        await stop(client)


async def test_the_workspace_pull_lists_unopened_files_from_disk_and_their_changes(
    tmp_path: Path,
) -> None:
    paths = suite(tmp_path, 6, bad={1, 4})
    (tmp_path / "notes.yaml").write_text("not: a spec file\n", encoding="utf-8")
    client = await start(tmp_path, {"diagnostics.scope": "workspace"})
    try:
        first = await workspace_pull(client)
        assert set(first) == {p.as_uri() for p in paths}
        assert {uri: codes(item) for uri, item in first.items() if item.items} == {
            paths[1].as_uri(): ["unknown-kind"],
            paths[4].as_uri(): ["unknown-kind"],
        }
        assert all(item.kind == "full" and item.version is None for item in first.values())

        # Nothing changed: every file is answered unchanged.
        ids = {uri: item.result_id for uri, item in first.items()}
        second = await workspace_pull(client, ids)
        assert {item.kind for item in second.values()} == {"unchanged"}

        # A file fixed on disk, another broken: those two are re-answered.
        paths[1].write_text(GOOD, encoding="utf-8")
        paths[2].write_text(BAD + "\n", encoding="utf-8")
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(uri=paths[1].as_uri(), type=types.FileChangeType.Changed),
                    types.FileEvent(uri=paths[2].as_uri(), type=types.FileChangeType.Changed),
                ]
            )
        )
        third = await workspace_pull(client, ids)
        changed = {uri for uri, item in third.items() if item.kind == "full"}
        assert changed == {paths[1].as_uri(), paths[2].as_uri()}
        assert codes(third[paths[1].as_uri()]) == []
        assert codes(third[paths[2].as_uri()]) == ["unknown-kind"]
        for _ in range(100):  # the client is asked to pull again
            if client.diagnostic_refresh_count:
                break
            await asyncio.sleep(0.02)
        assert client.diagnostic_refresh_count >= 1

        # An open file is answered from the editor's text, with its version.
        opened = open_doc(client, paths[4], GOOD, version=7)
        fourth = await workspace_pull(client)
        assert fourth[opened].version == 7 and codes(fourth[opened]) == []
    finally:
        await stop(client)


async def test_scope_open_files_answers_only_the_open_files(tmp_path: Path) -> None:
    paths = suite(tmp_path, 3, bad={0, 1, 2})
    client = await start(tmp_path, {})  # the default scope: openFiles
    try:
        uri = open_doc(client, paths[0], BAD)
        found = await workspace_pull(client)
        assert list(found) == [uri]
        # Turned to workspace by a settings change (nested, as workspace/configuration gives).
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"checkspec": {"diagnostics": {"scope": "workspace"}}}
            )
        )
        for _ in range(100):
            found = await workspace_pull(client)
            if len(found) == 3:
                break
            await asyncio.sleep(0.02)
        assert set(found) == {p.as_uri() for p in paths}
    finally:
        await stop(client)


async def test_a_client_that_does_not_pull_gets_pushed_diagnostics(tmp_path: Path) -> None:
    suite(tmp_path, 2, bad={0})
    client = await start(tmp_path, {"diagnostics.scope": "workspace"}, pull=False)
    try:
        assert client.init_result.capabilities.diagnostic_provider is None
        uri = open_doc(client, tmp_path / "open.scenario.yaml", BAD)
        for _ in range(500):
            if client.diagnostics.get(uri):
                break
            await asyncio.sleep(0.01)
        assert [d.code for d in client.diagnostics[uri]] == ["unknown-kind"]
    finally:
        await stop(client)


async def test_the_scope_may_come_from_checkspec_yaml(tmp_path: Path) -> None:
    paths = suite(tmp_path, 2, bad={1})
    (tmp_path / "checkspec.yaml").write_text("diagnostics_scope: workspace\n", encoding="utf-8")
    client = await start(tmp_path, {})
    try:
        found = await workspace_pull(client)
        assert set(found) == {p.as_uri() for p in paths}
        assert codes(found[paths[1].as_uri()]) == ["unknown-kind"]
    finally:
        await stop(client)


async def test_a_run_s_failures_reach_a_pulling_client(tmp_path: Path) -> None:
    suite(tmp_path, 0, set())
    failing = GOOD.replace("keyword: hello", "keyword: goodbye")
    client = await start(tmp_path, {})
    try:
        path = tmp_path / "fails.scenario.yaml"
        path.write_text(failing, encoding="utf-8")
        uri = open_doc(client, path, failing)
        ident = types.TextDocumentIdentifier(uri)
        before = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(ident))
        assert list(before.items) == []
        refreshes = client.diagnostic_refresh_count
        result = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="checkspec.runFile", arguments=[uri])
        )
        assert isinstance(result, dict) and result["scenarios"][0]["status"] == "fail"
        for _ in range(200):  # asked to pull again, instead of a push
            if client.diagnostic_refresh_count > refreshes:
                break
            await asyncio.sleep(0.02)
        assert client.diagnostic_refresh_count > refreshes
        after = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(ident, previous_result_id=before.result_id)
        )
        assert isinstance(after, types.RelatedFullDocumentDiagnosticReport)
        assert after.items and {d.source for d in after.items} == {"checkspec run"}
        assert uri not in client.diagnostics
    finally:
        await stop(client)
