"""Output paths that follow links out of the workspace (issue 48 item 4): a repository can
ship `report.html` as a link to a file in the user's home, or `out/` as a link to a
folder there. Every command that writes a file named by `-o` refuses it, naming where it
would have led, and writes nothing there; `--force` does not lift it; the place itself,
named, is written. Real processes of the CLI, in a workspace made once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]

SCENARIO = """\
name: greets
steps:
  - interacts:
      - inputs: hi
    checks:
      - kind: not
        check: {kind: equals, expected_value: ""}
"""

DATASET = """\
name: faq
scenarios:
  - name: one
    interactions:
      - input: hello
        checks:
          - identifier: equals
            params: {expected_value: hi}
"""

# Each command that writes a file with -o, as it is called (OUT: the path given to -o).
COMMANDS = {
    "run": ["run", "suites", "--format", "json", "-o", "OUT"],
    "run --dry-run": ["run", "suites", "--dry-run", "-o", "OUT"],
    "report": ["report", "run.json", "-o", "OUT"],
    "compare": ["compare", "run.json", "run.json", "-o", "OUT"],
    "merge": ["merge", "run.json", "-o", "OUT"],
    "calibrate": ["calibrate", "suites", "-o", "OUT"],
    "hub export": ["hub", "export", "data/faq.dataset.yaml", "-o", "OUT", "--force"],
}


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=dict(os.environ)
    )


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("output-links") / "ws"
    (root / "suites").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "checkspec.yaml").write_text("target: python:agent:answer\njobs: 1\n")
    (root / "agent.py").write_text("def answer(question):\n    return 'hi'\n")
    (root / "suites" / "greets.scenario.yaml").write_text(SCENARIO)
    (root / "data" / "faq.dataset.yaml").write_text(DATASET)
    done = cli(root, "run", "suites", "--format", "json", "-o", "run.json", "--no-history")
    assert done.returncode == 0, done.stderr
    return root


def _call(workspace: Path, command: str, out: str) -> subprocess.CompletedProcess[str]:
    return cli(workspace, *[out if part == "OUT" else part for part in COMMANDS[command]])


@pytest.mark.parametrize("command", COMMANDS)
def test_an_output_that_is_a_link_out_of_the_workspace_is_refused(
    workspace: Path, command: str, tmp_path: Path
) -> None:
    victim = tmp_path / "home" / ".bashrc"
    victim.parent.mkdir()
    victim.write_text("precious\n")
    link = workspace / f"report-{command.replace(' ', '-')}.out"
    link.symlink_to(victim)
    done = _call(workspace, command, link.name)
    assert done.returncode == 2, done.stderr
    assert f"{link.name} is a link out of the workspace (to {victim})" in done.stderr
    assert "Traceback" not in done.stderr
    assert victim.read_text() == "precious\n" and link.is_symlink()


@pytest.mark.parametrize("command", COMMANDS)
def test_an_output_in_a_linked_folder_out_of_the_workspace_is_refused(
    workspace: Path, command: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    folder = workspace / f"out-{command.replace(' ', '-')}"
    folder.symlink_to(home, target_is_directory=True)
    done = _call(workspace, command, f"{folder.name}/deeper/report.out")
    assert done.returncode == 2, done.stderr
    assert f"goes through {folder.name}, a link out of the workspace" in done.stderr
    assert str(home / "deeper" / "report.out") in done.stderr
    assert list(home.iterdir()) == []  # not even the folder on the way


def test_dot_dot_through_a_linked_folder_is_refused(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home" / "inner"
    home.mkdir(parents=True)
    (workspace / "up").symlink_to(home, target_is_directory=True)
    done = cli(workspace, "report", "run.json", "-o", "up/../stolen.html")
    assert done.returncode == 2
    assert f"(to {home.parent / 'stolen.html'})" in done.stderr
    assert not (home.parent / "stolen.html").exists()


def test_the_place_itself_named_is_written(workspace: Path, tmp_path: Path) -> None:
    # The refusal says "name the place itself": a path outside the workspace, named, is
    # the user's own choice.
    elsewhere = tmp_path / "artifacts" / "report.html"
    done = cli(workspace, "report", "run.json", "-o", str(elsewhere))
    assert done.returncode == 0, done.stderr
    assert elsewhere.read_text().lstrip().lower().startswith("<!doctype html")


def test_hub_import_into_a_linked_folder_out_of_the_workspace_is_refused(
    workspace: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (workspace / "imported").symlink_to(home, target_is_directory=True)
    exported = cli(workspace, "hub", "export", "data/faq.dataset.yaml", "-o", "hub.jsonl")
    assert exported.returncode == 0, exported.stderr
    for to in ("imported/d.dataset.jsonl", "imported/d.dataset.yaml"):
        done = cli(workspace, "hub", "import", "hub.jsonl", "--to", to)
        assert done.returncode == 2
        assert f"goes through imported, a link out of the workspace (to {home}/" in done.stderr
    assert list(home.iterdir()) == []
