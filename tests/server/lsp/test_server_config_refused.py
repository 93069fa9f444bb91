"""The editor's side of a checkspec.yaml that cannot be used (issue 47 item 1, issue 48
item 1): a spec file under it says so at its head, and a run from the editor is refused
with the file's problems, never run with defaults. The CLI's side:
tests/cli/test_config_unreadable.py, tests/security/test_parent_config.py."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.lsp_helpers import diagnostics, open_file, start_session

# One server, in order: the second test fixes the file the first one opened.
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.random_order(disabled=True)]

AGENT = "from pathlib import Path\n\ndef answer(text):\n    Path(__file__).with_name('CALLED').write_text(text)\n    return 'hi'\n"
SPEC = """\
name: greets
target: python:agent:answer
steps:
  - interacts:
      - inputs: hello
    checks:
      - kind: string_matching
        keyword: hi
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("refused-ws")
    (root / "agent.py").write_text(AGENT)
    return root


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "checkspec.server"],
    server_env={k: v for k, v in os.environ.items() if not k.startswith("CHECKSPEC_")},
)


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path):
    await start_session(lsp_client, workspace)
    yield
    await lsp_client.shutdown_session()


def not_in_force(found: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in found if "is not in force" in d.message]


async def run_file(client: LanguageClient, uri: str) -> dict:
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="checkspec.runFile", arguments=[uri])
    )
    assert isinstance(result, dict)
    return result


async def test_a_config_with_errors_is_shown_and_its_runs_refused(
    client: LanguageClient, workspace: Path
) -> None:
    (workspace / "checkspec.yaml").write_text("scenario_timeout: 30\ntarget_timout: 5\n")
    uri = open_file(client, workspace / "greets.scenario.yaml", SPEC)
    found = not_in_force(
        await diagnostics(client, uri, lambda d: bool(not_in_force(list(d))), seconds=60)
    )
    assert found[0].severity == types.DiagnosticSeverity.Warning
    assert "checkspec.yaml:2:1" in found[0].message and "target_timeout" in found[0].message
    result = await run_file(client, uri)
    assert result["status"] == "error" and "nothing runs with defaults" in result["error"]
    assert result["scenarios"] == []
    assert not (workspace / "CALLED").exists()  # the target never ran


async def test_once_fixed_the_notice_goes_and_the_file_runs(
    client: LanguageClient, workspace: Path
) -> None:
    config = workspace / "checkspec.yaml"
    config.write_text("scenario_timeout: 30\n")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    uri = (workspace / "greets.scenario.yaml").as_uri()
    await diagnostics(client, uri, lambda d: not not_in_force(list(d)), seconds=60)
    result = await run_file(client, uri)
    assert result.get("status") != "error", result
    assert (workspace / "CALLED").read_text() == "hello"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
async def test_a_parent_config_of_another_user_is_refused_in_the_editor(
    client: LanguageClient, workspace: Path
) -> None:
    shared = workspace / "shared"
    (shared / "mine").mkdir(parents=True)
    (shared / "checkspec.yaml").write_text("target: python:agent:answer\n")
    for path in (shared, shared / "checkspec.yaml"):
        os.chown(path, 65534, 65534)
    uri = open_file(
        client,
        shared / "mine" / "greets.scenario.yaml",
        SPEC.replace("target: python:agent:answer\n", ""),
    )
    found = not_in_force(
        await diagnostics(client, uri, lambda d: bool(not_in_force(list(d))), seconds=60)
    )
    assert "belongs to" in found[0].message
    result = await run_file(client, uri)
    assert result["status"] == "error" and "CHECKSPEC_TRUSTED_FOLDERS" in result["error"]
