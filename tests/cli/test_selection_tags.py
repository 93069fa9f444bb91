"""Repeated `--tag` means every tag, in `run` as in curation and `list` (docs/decisions.md
"Repeated --tag means every tag"). Real CLI subprocesses on real files."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.support.cli import Done, run_main

SUITE = """
name: s
target: python:agent:answer
scenarios:
  - name: only a
    tags: [a]
    steps:
      - interacts: [{inputs: q}]
        checks: [{kind: string_matching, keyword: ok}]
  - name: only b
    tags: [b]
    steps:
      - interacts: [{inputs: q}]
        checks: [{kind: string_matching, keyword: ok}]
  - name: both
    tags: [a, b]
    steps:
      - interacts: [{inputs: q}]
        checks: [{kind: string_matching, keyword: ok}]
"""


def cli(folder: Path, *args: str, code: int = 0) -> Done:
    done = run_main(folder, *args)
    assert done.returncode == code, done.stdout + done.stderr
    return done


def workspace(folder: Path) -> Path:
    (folder / "checkspec.yaml").write_text("history: false\n", encoding="utf-8")
    (folder / "agent.py").write_text("def answer(question: str) -> str:\n    return 'ok'\n")
    suite = folder / "s.suite.yaml"
    suite.write_text(textwrap.dedent(SUITE).lstrip(), encoding="utf-8")
    return suite


def test_run_takes_the_scenarios_with_every_tag(tmp_path: Path) -> None:
    workspace(tmp_path)
    done = cli(tmp_path, "run", "s.suite.yaml", "--tag", "a", "--tag", "b", "--format", "json")
    ran = [s["id"].rsplit("::", 1)[1] for s in json.loads(done.stdout)["scenarios"]]
    assert ran == ["both"]
    one = cli(tmp_path, "run", "s.suite.yaml", "--tag", "a", "--format", "json")
    assert len(json.loads(one.stdout)["scenarios"]) == 2


def test_curation_edits_the_same_scenarios_run_takes(tmp_path: Path) -> None:
    suite = workspace(tmp_path)
    cli(tmp_path, "tag", "add", "picked", "s.suite.yaml", "--tag", "a", "--tag", "b")
    done = cli(tmp_path, "run", "s.suite.yaml", "--tag", "picked", "--format", "json")
    ran = [s["id"].rsplit("::", 1)[1] for s in json.loads(done.stdout)["scenarios"]]
    assert ran == ["both"], suite.read_text()


def test_no_scenario_with_every_tag_is_an_error(tmp_path: Path) -> None:
    workspace(tmp_path)
    cli(tmp_path, "tag", "remove", "b", "s.suite.yaml::both")
    done = cli(tmp_path, "run", "s.suite.yaml", "--tag", "a", "--tag", "b", code=2)
    assert "no scenario has every tag of 'a', 'b'" in done.stderr
