"""One workspace (issue 35 item 1): `find_workspace` is the one discovery, and every front
end goes through it; the CLI runs as a real subprocess, the model is the local stub."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from checkspec.engine.spec.workspace import WorkspaceConflict, find_workspace
from tests.support.generate_helpers import knowledge_base
from tests.support.openai_stub import GenerationAnswers, running_stub

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
SCENARIO = "name: s\ninteractions:\n  - inputs: hi\n    outputs: hi\n    checks:\n      - kind: equals\n        key: trace.last.outputs\n        expected_value: hi\n"


def cli(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CHECKSPEC_", "OPENAI_"))}
    return subprocess.run(
        [*CLI, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**clean, **(env or {})},
    )


def test_the_nearest_checkspec_yaml_upwards_of_the_paths_else_of_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "checkspec.yaml").write_text("model: openai/a\n")
    (tmp_path / "suites" / "deep").mkdir(parents=True)
    nested = tmp_path / "nested"
    nested.mkdir()
    (nested / "checkspec.yml").write_text("model: openai/b\n")
    assert find_workspace([tmp_path / "suites" / "deep" / "x.scenario.yaml"]).root == tmp_path
    assert find_workspace([nested / "y.scenario.yaml"]).config.model == "openai/b"
    monkeypatch.chdir(tmp_path / "suites")
    assert find_workspace().root == tmp_path
    assert find_workspace(["deep", "not-yet-written.dataset.yaml"]).root == tmp_path
    with pytest.raises(WorkspaceConflict) as raised:
        find_workspace([tmp_path / "suites", nested])
    assert raised.value.roots == (tmp_path, nested)


def test_run_with_paths_of_two_workspaces_exits_2_naming_both_roots(tmp_path: Path) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "checkspec.yaml").write_text(f"model: openai/{name}\n")
        (tmp_path / name / "a.scenario.yaml").write_text(SCENARIO)
    done = cli(tmp_path, "run", "one/a.scenario.yaml", "two/a.scenario.yaml")
    assert done.returncode == 2, done.stderr
    assert str(tmp_path / "one") in done.stderr and str(tmp_path / "two") in done.stderr
    assert "two workspaces" in done.stderr


def test_generate_from_docs_elsewhere_uses_the_workspace_model_and_api_base(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "project"
    (workspace / "suites").mkdir(parents=True)
    kb = knowledge_base(tmp_path / "elsewhere")  # no checkspec.yaml near the docs
    with running_stub() as stub:
        stub.chat = GenerationAnswers()
        (workspace / "checkspec.yaml").write_text(
            f"model: openai/stub-model\napi_base: {stub.base_url}\n"
        )
        done = cli(
            workspace / "suites",  # run from inside the workspace, below its root
            "generate",
            "--from-docs",
            str(kb),
            "-n",
            "2",
            "-o",
            "gen.dataset.yaml",
            env={"CHECKSPEC_API_KEY": "sk-test"},
        )
        assert done.returncode == 0, done.stderr
        assert stub.chat_requests, "the workspace's api_base was not used"
        assert {r["model"] for r in stub.chat_requests} == {"stub-model"}
    written = yaml.safe_load((workspace / "suites" / "gen.dataset.yaml").read_text())
    assert len(written["scenarios"]) == 2
