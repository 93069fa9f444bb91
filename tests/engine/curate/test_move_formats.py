"""`checkspec move` between file formats (engine/curate/move.py): values JSON cannot hold
(a key that is no text, NaN; a date reads as its text) stay in YAML, a move goes only into a suite or a dataset with a list of scenarios, JSON
Lines rows are appended on lines of their own, an empty JSON list and a YAML block list
take JSON and YAML items together. In-process (tests/support/cli.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import Done, run_main

SUITE = """\
name: s
scenarios:
  - name: keyed
    annotations: {1: one}
    steps:
      - interacts: [{inputs: hi, outputs: yo}]
  - name: not a number
    annotations: {score: .nan}
    steps:
      - interacts: [{inputs: hi, outputs: yo}]
  - name: plain
    steps:
      - interacts: [{inputs: hi, outputs: yo}]
"""

ROW = {"name": "r0", "interactions": [{"input": {"messages": [{"role": "user", "content": "a"}]}}]}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "checkspec.yaml").write_text("jobs: 1\n")
    (tmp_path / "s.suite.yaml").write_text(SUITE)
    return tmp_path


def cli(root: Path, *args: str) -> Done:
    return run_main(root, *args)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("name", "line"), [("keyed", 3), ("not a number", 7)])
def test_values_json_cannot_hold_move_only_into_yaml(project: Path, name: str, line: int) -> None:
    before = snapshot(project)
    done = cli(project, "move", f"s.suite.yaml::{name}", "--to", "d.suite.json")
    assert done.returncode == 2
    assert (
        f"error: s.suite.yaml:{line}: {name!r} holds values JSON cannot (a non-text "
        "key, NaN): it can only move to a YAML file"
    ) in done.stderr
    assert snapshot(project) == before
    into_yaml = cli(project, "move", f"s.suite.yaml::{name}", "--to", "d.suite.yaml")
    assert into_yaml.returncode == 0, into_yaml.stderr


def test_a_move_goes_only_into_a_list_of_scenarios(project: Path) -> None:
    (project / "none.suite.yaml").write_text("name: none\n")
    before = snapshot(project)
    scenario = cli(project, "move", "s.suite.yaml::plain", "--to", "x.scenario.yaml")
    assert scenario.returncode == 2
    assert "error: x.scenario.yaml: a move goes into a suite or a dataset" in scenario.stderr
    listless = cli(project, "move", "s.suite.yaml::plain", "--to", "none.suite.yaml")
    assert listless.returncode == 2
    assert "error: none.suite.yaml: has no list of scenarios to add to" in listless.stderr
    assert snapshot(project) == before


def test_rows_into_a_new_and_an_existing_json_lines_file(project: Path) -> None:
    # The existing file's last row has no line end: the new row still gets a line.
    (project / "rows.dataset.jsonl").write_text(json.dumps(ROW))
    done = cli(project, "move", "rows.dataset.jsonl::#0", "--to", "new.dataset.jsonl", "--copy")
    assert done.returncode == 0, done.stderr
    assert [json.loads(r) for r in (project / "new.dataset.jsonl").read_text().splitlines()] == [
        ROW
    ]
    back = cli(project, "move", "new.dataset.jsonl::#0", "--to", "rows.dataset.jsonl")
    assert back.returncode == 0, back.stderr
    rows = [json.loads(r) for r in (project / "rows.dataset.jsonl").read_text().splitlines()]
    assert rows == [ROW, ROW]
    assert (project / "rows.dataset.jsonl").read_text().endswith("\n")
    assert (project / "new.dataset.jsonl").read_text() == ""  # moved, not copied
    assert cli(project, "validate", "rows.dataset.jsonl").returncode == 0


def test_into_an_empty_json_list(project: Path) -> None:
    (project / "e.suite.json").write_text('{"name": "e", "scenarios": []}\n')
    done = cli(project, "move", "s.suite.yaml::plain", "--to", "e.suite.json")
    assert done.returncode == 0, done.stderr
    data = json.loads((project / "e.suite.json").read_text())
    assert data == {
        "name": "e",
        "scenarios": [
            {"name": "plain", "steps": [{"interacts": [{"inputs": "hi", "outputs": "yo"}]}]}
        ],
    }
    assert "plain" not in (project / "s.suite.yaml").read_text()


def test_json_and_yaml_items_together_into_a_yaml_block_list(project: Path) -> None:
    (project / "j.suite.json").write_text(
        '{"name": "j", "scenarios": [{"name": "from json", "steps": []}]}\n'
    )
    (project / "t.suite.yaml").write_text("name: t\nscenarios:\n  - name: first\n    steps: []\n")
    done = cli(
        project, "move", "j.suite.json::#0", "s.suite.yaml::plain", "--to", "t.suite.yaml", "--copy"
    )
    assert done.returncode == 0, done.stderr
    assert (project / "t.suite.yaml").read_text() == (
        "name: t\nscenarios:\n"
        "  - name: first\n    steps: []\n"
        '  - {"name": "from json", "steps": []}\n'  # JSON is YAML: a flow mapping
        "  - name: plain\n    steps:\n      - interacts: [{inputs: hi, outputs: yo}]\n"
    )
    assert cli(project, "validate", "t.suite.yaml").returncode == 0
