"""Hover and completion inside a JSON Lines dataset's row: the same answers as at the same
place of the same scenario in a `.dataset.json` (they found nothing in a `.jsonl`: the file
has no root, each row being a document of its own)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkspec.engine.spec.document import Document, analyze
from checkspec.engine.spec.problems import Position
from checkspec.server.analysis.completion import complete
from checkspec.server.analysis.hover import hover
from tests.support.hub_rows import row

ROWS = [row(n) for n in range(40)]
AT = 23  # a row past the bisection's first probes


def jsonl(rows: list[str]) -> tuple[str, Document]:
    text = "\n".join(rows) + "\n"
    return text, analyze(text, Path("/w/faq.dataset.jsonl"))


def as_json(line: str) -> tuple[str, Document, int]:
    """The row as the one scenario of a .dataset.json, on one line: the same columns
    shifted by the prefix's length."""
    prefix = '{"scenarios": ['
    text = prefix + line + "]}\n"
    return text, analyze(text, Path("/w/faq.dataset.json")), len(prefix)


@pytest.mark.parametrize(
    ("needle", "offset"),
    [
        ("string_matching", 3),  # a check's kind: its documentation
        ('"keyword"', 3),  # a parameter
        ('"name"', 2),
        ('"tags"', 2),
        ('"output"', 3),
        ('"input"', 3),
    ],
)
def test_hover_in_a_row_is_the_hover_of_a_json_dataset(needle: str, offset: int) -> None:
    _, document = jsonl(ROWS)
    line = ROWS[AT]
    found = hover(document, Position(AT, line.index(needle) + offset))
    _, same, shift = as_json(line)
    expected = hover(same, Position(0, shift + line.index(needle) + offset))
    assert expected is not None and found is not None
    assert found.markdown == expected.markdown
    start, end = found.range
    assert (start.line, end.line) == (AT, AT)
    assert (start.character + shift, end.character + shift) == (
        expected.range.start.character,
        expected.range.end.character,
    )


def test_completion_in_a_row_is_the_completion_of_a_json_dataset() -> None:
    typed = ROWS[AT].replace('"string_matching"', '"string_m"')
    rows = [*ROWS[:AT], typed, *ROWS[AT + 1 :]]
    text, document = jsonl(rows)
    at = typed.index('"string_m"') + len('"string_m')
    kinds = complete(document, text, Position(AT, at))
    json_text, same, shift = as_json(typed)
    expected = complete(same, json_text, Position(0, shift + at))
    assert [c.label for c in kinds] == [c.label for c in expected]
    assert "string_matching" in [c.label for c in kinds]
    # A parameter's key: the check's other parameters.
    typed = ROWS[AT].replace('{"keyword": "It"}', '{"keyword": "It", "": 1}')
    rows = [*ROWS[:AT], typed, *ROWS[AT + 1 :]]
    text, document = jsonl(rows)
    at = typed.index(', "": 1}') + 3
    keys = [c.label for c in complete(document, text, Position(AT, at))]
    json_text, same, shift = as_json(typed)
    assert keys == [c.label for c in complete(same, json_text, Position(0, shift + at))]
    assert "case_sensitive" in keys and "keyword" not in keys


def test_no_answer_where_no_row_is_read() -> None:
    broken = ROWS[AT].replace('"tags"', "tags")  # not JSON: its problem, no tree
    rows = [*ROWS[:AT], broken, "", *ROWS[AT + 1 :]]
    _, document = jsonl(rows)
    assert hover(document, Position(AT, broken.index("string_matching") + 3)) is None
    assert hover(document, Position(AT + 1, 0)) is None  # the blank line
    # The rows around still answer.
    assert hover(document, Position(AT + 2, ROWS[AT + 1].index("string_matching") + 3))
    assert json.loads(ROWS[AT])["name"] == f"row {AT}"
