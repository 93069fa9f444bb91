"""A `trace.` path that resolves to nothing in the data a run would check is a warning,
with the keys that are there, a did-you-mean and a fix; `checkspec validate` says it too."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from checkspec.engine.spec import check_analysis, scenario_analysis
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Severity

MODE = {"keep": True}  # how the fixture's run of each test analyses: as `run`, or problems only


@pytest.fixture(autouse=True, params=["run", "problems only"])
def analysis_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """Each test as `checkspec run` analyses (every check built) and as the server and
    `validate` do (problems only: checks read back by text with their selector paths)."""
    monkeypatch.setattr(scenario_analysis, "_CACHE", {})
    monkeypatch.setattr(check_analysis, "_CHECKS", {})
    MODE["keep"] = request.param == "run"
    yield


RECORDED = """
name: recorded
steps:
  - interacts:
      - inputs: Where is my order?
        outputs: {answer: It ships tomorrow, score: 0.8}
    checks:
      - kind: string_matching
        target_key: trace.last.outputs.answr
        keyword: tomorrow
      - kind: not
        check: {kind: greater_than, target_key: "trace.last.outputs['scor']", expected_value: 1}
      - kind: equals
        target_key: trace.interactions[0].outputs.score
        expected_value: 0.8
"""


def problems(text: str, name: str = "t.scenario.yaml") -> list:
    document = analyze(textwrap.dedent(text).lstrip("\n"), name, keep=MODE["keep"])
    return [p for p in document.all_problems if p.code == "unresolved-trace-path"]


def fixed(text: str, name: str = "t.scenario.yaml") -> str:
    text = textwrap.dedent(text).lstrip("\n")
    lines = text.split("\n")
    edits = [e for p in problems(text, name) for e in p.fix]
    for edit in sorted(edits, key=lambda e: e.range.start, reverse=True):
        line = lines[edit.range.start.line]
        lines[edit.range.start.line] = (
            line[: edit.range.start.character] + edit.new_text + line[edit.range.end.character :]
        )
    return "\n".join(lines)


def test_a_misspelt_recorded_key_is_a_warning_with_a_fix() -> None:
    answr, scor = problems(RECORDED)
    assert answr.severity is Severity.WARNING
    assert answr.message == (
        "trace.last.outputs.answr resolves to nothing in the recorded outputs: "
        "trace.last.outputs has 'answer', 'score'; did you mean 'answer'?"
    )
    assert (answr.range.start.line, answr.range.start.character) == (7, 20)
    assert answr.fix_title == "Change to 'answer'"
    assert "did you mean 'score'?" in scor.message  # nested, quoted, bracketed
    repaired = fixed(RECORDED)
    assert "target_key: trace.last.outputs.answer\n" in repaired
    assert "\"trace.last.outputs['score']\"" in repaired
    assert problems(repaired) == []


def test_no_warning_when_a_run_would_not_replay_the_recording() -> None:
    with_target = RECORDED.replace("name: recorded", "name: live\ntarget: python:agent:answer")
    assert problems(with_target) == []
    unrecorded = RECORDED.replace("        outputs: {answer: It ships tomorrow, score: 0.8}\n", "")
    assert problems(unrecorded) == []


def test_a_text_answer_has_no_keys() -> None:
    text = RECORDED.replace("{answer: It ships tomorrow, score: 0.8}", "It ships tomorrow")
    assert "has no keys (it is text)" in problems(text)[0].message


def test_a_dataset_path_is_checked_against_its_output_schema_when_a_target_answers() -> None:
    dataset = """
    name: d
    target: python:agent:chat
    output_schema:
      type: object
      properties:
        response: {type: object, properties: {content: {type: string}}}
        metadata: {type: object}
    scenarios:
      - interactions:
          - input: {messages: [{role: user, content: hi}]}
            checks:
              - identifier: string_matching
                params: {keyword: hi, target_key: trace.last.outputs.respons.content}
              - identifier: string_matching
                params: {keyword: hi, target_key: trace.last.outputs.metadata.anything}
    """
    (found,) = problems(dataset, "d.dataset.yaml")
    assert "in the dataset's output_schema" in found.message
    assert "did you mean 'response'?" in found.message
    # Datasets' default text_key (trace.last.outputs.response.content) is declared.
    assert problems(dataset.replace("respons.", "response."), "d.dataset.yaml") == []


def test_checkspec_validate_reports_it(tmp_path: Path) -> None:
    path = tmp_path / "t.scenario.yaml"
    path.write_text(textwrap.dedent(RECORDED).lstrip("\n"))
    done = subprocess.run(
        [sys.executable, "-m", "checkspec.engine.cli.main", "validate", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert f"{path}:8:21: warning: trace.last.outputs.answr resolves to nothing" in done.stderr
