"""Hints for two YAML traps: ` #` cutting a text short, and a comma splitting a `{...}` value."""

from __future__ import annotations

import textwrap

from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.lines import LineIndex
from checkspec.engine.spec.problems import Severity

TEXT = textwrap.dedent(
    """\
    name: traps
    steps:
      - interacts:
          - inputs: Where is my order #12345?
            outputs: We ship to the EU, the UK and Switzerland.
        checks:
          - {kind: string_matching, keyword: We ship to the EU, the UK and Switzerland.}
          - kind: string_matching
            keyword: refund  # a comment set apart, as yamllint asks
          - kind: string_matching
            keyword: "#1"
      - interacts:
          - {inputs: Hello, the UK and Switzerland.}
    """
)


def test_a_comment_cutting_a_text_value_gets_an_info_hint_with_a_quoting_fix() -> None:
    document = analyze(TEXT, "t.scenario.yaml")
    (hint,) = [p for p in document.all_problems if p.code == "comment-in-text"]
    assert hint.severity is Severity.INFORMATION
    assert hint.message == (
        "'inputs' is 'Where is my order': YAML reads ' #12345?' as a comment; if it is part "
        "of the text, put the whole text in quotes"
    )
    index = LineIndex(TEXT)
    assert index.slice(hint.range) == "Where is my order #12345?"
    (edit,) = hint.fix
    fixed = (
        TEXT[: index.offset(edit.range.start)]
        + edit.new_text
        + TEXT[index.offset(edit.range.end) :]
    )
    root = analyze(fixed, "t.scenario.yaml").source.root
    assert root is not None
    assert root.value["steps"][0]["interacts"][0]["inputs"] == "Where is my order #12345?"
    assert hint.fix_title == "Quote the text, comment included"


def test_a_comma_in_a_flow_mapping_says_the_value_needs_quotes() -> None:
    document = analyze(TEXT, "t.scenario.yaml")
    found = [p for p in document.all_problems if p.code == "unknown-parameter"]
    assert [(p.range.start.line, p.message) for p in found] == [
        (
            6,
            "unknown parameter 'the UK and Switzerland.' for string_matching; inside {...} a "
            "comma ends a value: if 'the UK and Switzerland.' belongs to 'keyword', put that "
            "whole value in quotes",
        ),
        (
            12,
            "unknown parameter 'the UK and Switzerland.' for interaction; inside {...} a comma "
            "ends a value: if 'the UK and Switzerland.' belongs to 'inputs', put that whole "
            "value in quotes",
        ),
    ]


def test_a_comma_in_a_scenario_mapping_says_so_too() -> None:
    document = analyze("{name: Hello, world, steps: []}\n", "t.scenario.yaml")
    (problem,) = [p for p in document.all_problems if p.code == "unknown-field"]
    assert "if 'world' belongs to 'name', put that whole value in quotes" in problem.message


def test_no_hint_for_ordinary_keys_quoted_values_or_json() -> None:
    text = "name: x # the name\nsteps: []  # none yet\n"
    assert [p.code for p in analyze(text, "t.scenario.yaml").all_problems] == []
    json_text = '{"name": "x #1", "steps": []}'
    assert analyze(json_text, "t.scenario.json").all_problems == []
    plain = "{name: x, steps: [], tags: [a, b]}\n"
    assert analyze(plain, "t.scenario.yaml").all_problems == []
