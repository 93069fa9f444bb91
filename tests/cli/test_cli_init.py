"""`checkspec init` (issue 35 item 7): a workspace that validate and run --dry-run accept,
its state folder ignored by git, and never a file overwritten."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.cli import Done, run_main

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]


def cli(cwd: Path, *args: str) -> Done:
    return run_main(cwd, *args)


def test_init_writes_a_workspace_validate_and_dry_run_accept(tmp_path: Path) -> None:
    done = cli(tmp_path, "init", "project")
    assert done.returncode == 0, done.stderr
    project = tmp_path / "project"
    config_text = (project / "checkspec.yaml").read_text(encoding="utf-8")
    config = yaml.safe_load(config_text)
    assert config["model"] and config["target"] == "python:agent:answer"
    assert config["$schema"] == ".checkspec/schemas/config.schema.json"
    assert "# yaml-language-server: $schema=.checkspec/schemas/config.schema.json" in config_text
    assert config_text.count("\n#") >= 3  # commented
    assert (project / ".checkspec" / "schemas" / "config.schema.json").is_file()
    example = project / "suites" / "example.scenario.yaml"
    assert "$schema=../.checkspec/schemas/scenario.schema.json" in example.read_text()
    assert (project / ".checkspec" / ".gitignore").read_text().splitlines()[-1] == "*"
    valid = cli(project, "validate", ".")
    assert valid.returncode == 0, valid.stderr
    assert "1 scenario(s): valid" in valid.stderr
    dry = cli(project, "run", "--dry-run", "suites")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert "1 scenarios" in dry.stdout


def test_git_ignores_the_state_folder(tmp_path: Path) -> None:
    assert cli(tmp_path, "init").returncode == 0
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "checkspec.yaml" in status and "suites/example.scenario.yaml" in status
    assert ".checkspec" not in status


def test_init_refuses_to_overwrite_and_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yaml").write_text("model: mine\n", encoding="utf-8")
    done = cli(tmp_path, "init", ".")
    assert done.returncode == 2
    assert "checkspec.yaml exists" in done.stderr
    assert (tmp_path / "checkspec.yaml").read_text() == "model: mine\n"
    assert not (tmp_path / "suites").exists()  # nothing written at all


def test_init_twice_refuses_but_an_earlier_runs_gitignore_does_not_stop_it(
    tmp_path: Path,
) -> None:
    (tmp_path / ".checkspec").mkdir()
    (tmp_path / ".checkspec" / ".gitignore").write_text("# written by checkspec\n*\n")
    assert cli(tmp_path, "init").returncode == 0
    again = cli(tmp_path, "init")
    assert again.returncode == 2 and "example.scenario.yaml exists" in again.stderr


def test_init_options(tmp_path: Path) -> None:
    done = cli(tmp_path, "init", "--model", "openai/x", "--target", "http://localhost:9/ask")
    assert done.returncode == 0, done.stderr
    config = yaml.safe_load((tmp_path / "checkspec.yaml").read_text())
    assert config["model"] == "openai/x" and config["target"] == "http://localhost:9/ask"


def test_run_and_validate_without_a_path_take_the_current_folder(tmp_path: Path) -> None:
    """Right after init, `checkspec run` (no path) runs the workspace, as `pytest` and
    `ruff check` take the current folder; it said `error: ... required: PATH`."""
    assert cli(tmp_path, "init").returncode == 0
    (tmp_path / "agent.py").write_text("def answer(question: str) -> str:\n    return 'hi'\n")
    valid = cli(tmp_path, "validate")
    assert valid.returncode == 0, valid.stderr
    assert "1 scenario(s): valid" in valid.stderr
    dry = cli(tmp_path, "run", "--dry-run")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert "1 scenarios" in dry.stdout
    # From a subfolder: that folder's scenarios, the workspace's settings.
    nothing = cli(tmp_path / "suites", "run", "--dry-run")
    assert "1 scenarios" in nothing.stdout, nothing.stdout + nothing.stderr


def test_nothing_to_run_exits_2_without_a_report_or_a_kept_run(tmp_path: Path) -> None:
    """A folder without spec files, or a missing path: the error and exit 2, never a
    '0 passed' summary next to it, and no empty run in the history."""
    assert cli(tmp_path, "init").returncode == 0
    (tmp_path / "suites" / "example.scenario.yaml").unlink()
    for args in (("run",), ("run", "nope.scenario.yaml"), ("run", "--dry-run")):
        done = cli(tmp_path, *args)
        assert done.returncode == 2, done
        assert "passed" not in done.stdout and "scenarios" not in done.stdout, done.stdout
        assert "error:" in done.stderr
    assert json.loads(cli(tmp_path, "history", "--format", "json").stdout) == []
