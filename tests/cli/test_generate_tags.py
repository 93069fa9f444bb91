"""What `checkspec generate` writes is found again (issue 49 item 5): a dataset written
under a folder is collected by `list` (a name it would skip is refused up front: see
test_generate_refusals.py), and scenarios in a persona's voice carry a tag that says
which: `persona:<slug>` for a persona in words, `like:<file stem>` for --like."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from checkspec.engine.cli.main import main
from tests.support.generate_helpers import model_fixture  # noqa: F401 (the fixture)
from tests.support.openai_stub import GenerationAnswers, OpenAIStub

Model = tuple[OpenAIStub, GenerationAnswers]


def _tags(path: Path) -> set[str]:
    rows = (
        [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        if path.suffix == ".jsonl"
        else yaml.safe_load(path.read_text())["scenarios"]
    )
    return {tag for row in rows for tag in row.get("tags", [])}


def test_a_worded_persona_and_like_get_meaningful_tags_and_are_listed(
    tmp_path: Path,
    model: Model,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "suites").mkdir()
    first = Path("suites/homework.dataset.jsonl")
    persona = "A student asking for homework answers, again and again"
    assert main(["generate", "--persona", persona, "-n", "2", "-o", str(first)]) == 0
    tags = _tags(first)
    assert "persona:a-student-asking-for-homework-answers" in tags
    assert "persona" not in tags
    # --like: the tag names the file the examples come from, not "persona:like FILE".
    more = Path("suites/more.dataset.yaml")
    assert main(["generate", "--like", f"{first}::#0", "-n", "1", "-o", str(more)]) == 0
    tags = _tags(more)
    assert "like:homework" in tags
    assert not any(" " in tag for tag in tags)
    capsys.readouterr()
    # Both files are collected where they were written.
    assert main(["list", "scenarios", "suites", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["total"] == 3
    where = json.dumps(listed["scenarios"])
    assert "homework.dataset.jsonl" in where and "more.dataset.yaml" in where
