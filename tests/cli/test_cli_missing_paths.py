"""A path that does not exist gets the nearest names (issue 47 item 4): a selector, a
report, a Hub file, a file to label; each `no such file` error says what is near."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run_main
from tests.support.history_payloads import payload

SCENARIO = """\
name: greets
steps:
  - interacts:
      - inputs: hi
    checks:
      - kind: not
        check: {kind: equals, expected_value: ""}
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "checkspec.yaml").write_text("jobs: 1\n")
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / "example.scenario.yaml").write_text(SCENARIO)
    (tmp_path / "run.json").write_text(json.dumps(payload("r1")))
    return tmp_path


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (["run", "suites/exmple.scenario.yaml"], "suites/example.scenario.yaml"),
        (["run", "suits"], "suites"),
        (["run", "suits/example.scenario.yaml"], "suites/example.scenario.yaml"),
        (["validate", "suites/exmple.scenario.yaml::greets"], "suites/example.scenario.yaml"),
        (["report", "rum.json"], "run.json"),
        (["compare", "run.json", "rnu.json"], "run.json"),
        (["merge", "rum.json"], "run.json"),
        (["hub", "import", "rum.json", "--to", "d.dataset.yaml"], "run.json"),
        (["label", "suites/exampl.scenario.yaml:6", "pass"], "suites/example.scenario.yaml"),
        (["tag", "add", "x", "suites/exampel.scenario.yaml"], "suites/example.scenario.yaml"),
    ],
    ids=lambda value: value[0] if isinstance(value, list) else None,
)
def test_a_missing_path_gets_the_nearest_names(
    workspace: Path, command: list[str], said: str
) -> None:
    done = run_main(workspace, *command)
    assert done.returncode == 2, done.stderr
    assert "no such file" in done.stderr
    assert f"; nearest: {said}" in done.stderr


def test_nothing_near_says_nothing_more(workspace: Path) -> None:
    done = run_main(workspace, "report", "zzzzzzzz.json")
    assert done.returncode == 2
    assert "zzzzzzzz.json: no such file" in done.stderr and "nearest" not in done.stderr
