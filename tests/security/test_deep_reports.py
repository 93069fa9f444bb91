"""JSON reports nested deeply (issue 48 item 10): `report`, `compare`, `merge` and
`label --from-run` take report files from anywhere (a CI artifact, a colleague's run);
one nested past the interpreter's stack gave a RecursionError traceback, one nested less
deeply broke the HTML renderer or pydantic's serializer. Each is exit 2 naming the file.
Real processes of the CLI, on a report a real run wrote."""

from __future__ import annotations

import json
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
      - kind: conformity
        rule: The answer greets.
"""

COMMANDS = {
    "report": ["report", "REPORT"],
    "compare": ["compare", "REPORT", "run.json"],
    "compare --format html": ["compare", "run.json", "REPORT", "--format", "html"],
    "merge": ["merge", "REPORT"],
    "merge --format html": ["merge", "REPORT", "--format", "html"],
    "label --from-run": ["label", "suites/greets.scenario.yaml:6", "pass", "--from-run", "REPORT"],
}


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=dict(os.environ)
    )


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("deep-reports")
    (root / "suites").mkdir()
    (root / "checkspec.yaml").write_text("target: python:agent:answer\njobs: 1\n")
    (root / "agent.py").write_text("def answer(question):\n    return 'hi'\n")
    (root / "suites" / "greets.scenario.yaml").write_text(SCENARIO)
    done = cli(root, "run", "suites", "--format", "json", "-o", "run.json", "--no-history")
    assert done.returncode in (0, 1), done.stderr  # the judge has no model here: an error
    report = json.loads((root / "run.json").read_text())
    assert report["scenarios"][0]["id"] == "suites/greets.scenario.yaml::greets"
    return root


def _nested(workspace: Path, levels: int) -> str:
    """The real report with the agent's answer nested `levels` lists deep."""
    report = json.loads((workspace / "run.json").read_text())
    report["scenarios"][0]["final_trace"]["interactions"][0]["outputs"] = "@"
    text = json.dumps(report)
    name = f"nested-{levels}.json"
    (workspace / name).write_text(text.replace('"@"', "[" * levels + "]" * levels))
    return name


def _call(workspace: Path, command: str, report: str) -> subprocess.CompletedProcess[str]:
    return cli(workspace, *[report if part == "REPORT" else part for part in COMMANDS[command]])


@pytest.mark.parametrize("levels", [900, 100_000], ids=["under-the-stack", "past-the-stack"])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_deep_report_is_named_not_a_traceback(workspace: Path, command: str, levels: int) -> None:
    report = _nested(workspace, levels)
    done = _call(workspace, command, report)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"error: {report}: nested deeper than 200 levels" in done.stderr


def test_a_report_just_under_the_bound_is_read(workspace: Path) -> None:
    report = _nested(workspace, 190)
    for command in ("report", "compare --format html", "merge --format html"):
        done = _call(workspace, command, report)
        assert done.returncode in (0, 1), (command, done.stderr)
        assert "Traceback" not in done.stderr and "nested deeper" not in done.stderr
