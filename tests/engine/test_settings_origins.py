"""Each resolved setting carries its origin (issue 35 item 2): `checkspec settings` prints
them (a real CLI subprocess), and hover on a key of checkspec.yaml shows the effective
value and where it comes from (a real language server over stdio)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from checkspec.engine.settings import resolve
from checkspec.engine.spec.workspace import find_workspace
from tests.support.lsp_helpers import start_session

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
CONFIG = (
    "# the project's settings\nmodel: openai/from-file\napi_base: http://file:1\nconcurrency: 3\n"
)


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHECKSPEC_")}
    return {**env, **extra}


def cli(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=clean_env(**env)
    )


@pytest.fixture(name="project")
def project_fixture(tmp_path: Path) -> Path:
    (tmp_path / "checkspec.yaml").write_text(CONFIG)
    (tmp_path / "suites").mkdir()
    return tmp_path


def test_resolve_orders_flag_environment_file_default_and_says_where_from(project: Path) -> None:
    resolved = resolve(
        find_workspace([project / "suites"]),
        flags={"jobs": 2, "model": None},
        environ={"CHECKSPEC_API_BASE": "http://env:2", "CHECKSPEC_MODEL": ""},
    )
    assert resolved.settings.model == "openai/from-file"
    assert resolved.origins["model"] == "checkspec.yaml:2"
    assert resolved.settings.api_base == "http://env:2"
    assert resolved.origins["api_base"] == "CHECKSPEC_API_BASE"
    assert resolved.origins["concurrency"] == "checkspec.yaml:4"
    assert (resolved.settings.jobs, resolved.origins["jobs"]) == (2, "--jobs")
    assert resolved.origins["target"] == "default"
    over = resolve(
        find_workspace([project]),
        flags={"model": "openai/flag"},
        environ={"CHECKSPEC_MODEL": "openai/env"},
    )
    assert (over.settings.model, over.origins["model"]) == ("openai/flag", "--model")


def test_settings_command_text_is_aligned_with_origins_and_masks_the_key(project: Path) -> None:
    done = cli(
        project / "suites",
        "settings",
        "--jobs",
        "2",
        CHECKSPEC_API_BASE="http://env:2",
        CHECKSPEC_API_KEY="sk-secret-abcdefgh1234",
    )
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines()}
    assert lines["model"].split() == ["model", "openai/from-file", "checkspec.yaml:2"]
    assert lines["api_base"].split() == ["api_base", "http://env:2", "CHECKSPEC_API_BASE"]
    assert lines["jobs"].split() == ["jobs", "2", "--jobs"]
    assert lines["target"].split() == ["target", "(unset)", "default"]
    assert "sk-secret" not in done.stdout
    assert lines["api_key"].split()[-1] == "CHECKSPEC_API_KEY"
    # aligned: every origin starts in the same column
    columns = {line.index(line.split()[-1]) for line in done.stdout.splitlines()}
    assert len(columns) == 1


def test_settings_command_json_lists_name_value_origin(project: Path) -> None:
    done = cli(
        project,
        "settings",
        str(project / "suites"),
        "--format",
        "json",
        "--model",
        "openai/flag",
        CHECKSPEC_MODEL="openai/env",
    )
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows["model"] == {"name": "model", "value": "openai/flag", "origin": "--model"}
    assert rows["concurrency"] == {"name": "concurrency", "value": 3, "origin": "checkspec.yaml:4"}
    assert rows["api_key"]["value"] is None


def test_settings_command_of_two_workspaces_exits_2(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "checkspec.yaml").write_text("model: openai/x\n")
    done = cli(tmp_path, "settings", "a", "b")
    assert done.returncode == 2
    assert str(tmp_path / "a") in done.stderr and str(tmp_path / "b") in done.stderr


# The editor ------------------------------------------------------------------------------

SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "checkspec.server"],
    server_env=clean_env(CHECKSPEC_API_BASE="http://env:2"),
)


@pytest.fixture(name="editor_project", scope="module")
def editor_project_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hover_settings")
    (root / "checkspec.yaml").write_text(CONFIG)
    return root


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, editor_project: Path):
    await start_session(lsp_client, editor_project, options={"model": "openai/from-editor"})
    yield
    await lsp_client.shutdown_session()


async def hover_text(client: LanguageClient, uri: str, line: int) -> str:
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=2),
        )
    )
    assert found is not None
    contents = found.contents
    return contents.value if isinstance(contents, types.MarkupContent) else str(contents)


@pytest.mark.asyncio
async def test_hover_on_a_checkspec_yaml_key_shows_the_effective_value_and_its_origin(
    client: LanguageClient, editor_project: Path
) -> None:
    uri = (editor_project / "checkspec.yaml").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=CONFIG)
        )
    )
    model = await hover_text(client, uri, 1)
    assert "`openai/from-editor`" in model and "editor: checkspec.model" in model
    api_base = await hover_text(client, uri, 2)
    assert "`http://env:2`" in api_base and "CHECKSPEC_API_BASE" in api_base
    concurrency = await hover_text(client, uri, 3)
    assert "`3`" in concurrency and "checkspec.yaml:4" in concurrency


def test_settings_command_shows_limits_and_prices_by_model(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yaml").write_text(
        "model: openai/x\nmodels:\n  openai/x: {rpm: 10, input_cost_per_token: 0.1}\n"
    )
    done = cli(tmp_path, "settings", "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows["limits"] == {
        "name": "limits",
        "value": {"openai/x": {"rpm": 10}},
        "origin": "checkspec.yaml:2",
    }
    assert rows["prices"]["value"] == {"openai/x": [0.1, 0.0]}
    text = cli(tmp_path, "settings")
    assert '{"openai/x": {"rpm": 10}}' in text.stdout
