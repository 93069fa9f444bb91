"""The fast JSON Lines row reader (engine/spec/json_rows.py) makes the tree the general
reader makes, node for node, or declines the row; the analysis of a dataset is the same
either way."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checkspec.engine.spec import json_rows, source
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.source import MAX_NODES, MAX_ROW_DEPTH, parse_jsonl_row
from checkspec.engine.spec.tree import Node, Shift
from tests.support.analysis_summary import shape
from tests.support.hub_rows import row
from tests.support.json_values import JSON_VALUES


def general(line: str, number: int) -> source.Row:
    return parse_jsonl_row(line, number, max_depth=MAX_ROW_DEPTH, max_nodes=MAX_NODES)


def fast(line: str, number: int) -> tuple[Node, int] | None:
    return json_rows.read_row(line, number, Shift(), max_depth=MAX_ROW_DEPTH, max_nodes=MAX_NODES)


def agrees(line: str, number: int = 7) -> bool:
    """Whether the fast reader read the line (True) or declined it (False); when it read
    it, its tree and node count are the general reader's, which found no problem."""
    found = fast(line, number)
    if found is None:
        return False
    row = general(line, number)
    assert row.problems == []
    assert row.root is not None
    assert shape(found[0]) == shape(row.root)
    assert found[1] == row.nodes
    return True


HUB_ROW = row(1)


@pytest.mark.parametrize(
    "line",
    [
        HUB_ROW,
        '{"a":1,"b":[true,false,null,-0.5e+3,"x"],"c":{}}',
        '  {"é": "😀 ünï", "k": ["\\u00e9\\n\\"\\\\", 12345678901234567890]}  ',
        "[]",
        "[[[[1]]], {}]",
        '"just a string"',
        "42",
        json.dumps({"x": "a" * 5000}),
    ],
)
def test_fast_reader_reads_ordinary_rows_as_the_general_reader(line: str) -> None:
    assert agrees(line)


@pytest.mark.parametrize(
    "line",
    [
        '{"a": 1, "a": 2}',  # a duplicate key: the general reader warns
        '{"a": NaN}',
        '{"a": Infinity}',
        '{"a":\t1}',  # a tab: YAML reads whitespace its own way
        '{"a": "x\u2028y"}',  # a YAML line break inside a string
        '{"a": "\\ud83d\\ude00"}',  # surrogate escapes
        json.dumps({"k" * 1100: 1}),  # a key longer than libyaml's implicit keys
        "[" * (MAX_ROW_DEPTH + 5) + "]" * (MAX_ROW_DEPTH + 5),  # too deep
        '{"a": 1',  # not JSON
        "[1] [2]",
    ],
)
def test_fast_reader_declines_what_the_general_reader_must_read(line: str) -> None:
    assert fast(line, 0) is None


def test_an_ascii_row_is_searched_for_the_same_characters_as_any_other() -> None:
    """An ASCII row is searched for the ASCII part of RISKY (the full class compiles to a
    table of all of Unicode, a start-up cost); the two agree on every ASCII character, and
    a row with any of the others is still declined, by both readers of values."""
    import re

    ascii_class = re.compile("[\x00-\x1f\x7f]")
    for code in range(128):
        char = chr(code)
        assert bool(ascii_class.search(char)) == bool(json_rows.risky().search(char)), hex(code)
    assert json_rows.risky().pattern == json_rows.RISKY
    for char in ("\x85", "\x9f", "\u2028", "\ufeff", "\ufffe", "\uffff"):
        line = json.dumps({"caf\u00e9": f"a{char}b"}, ensure_ascii=False)
        assert fast(line, 0) is None, repr(char)
        assert json_rows.row_value(line, max_depth=MAX_ROW_DEPTH, max_nodes=MAX_NODES) == (
            False,
            None,
        )
    line = '{"a": "x\x7fy"}'  # DEL, ASCII
    assert fast(line, 0) is None
    assert json_rows.row_value(line, max_depth=MAX_ROW_DEPTH, max_nodes=MAX_NODES)[0] is False
    assert fast('{"caf\u00e9": 1}', 0) is not None


def test_a_declined_row_still_gets_the_general_readers_problems() -> None:
    row = source.read_jsonl_row('{"a": 1, "a": 2}', 3)
    assert [p.code for p in row.problems] == ["duplicate-key"]
    assert row.problems[0].range.start.line == 3


@given(
    value=JSON_VALUES,
    ascii_only=st.booleans(),
    compact=st.booleans(),
    number=st.integers(min_value=0, max_value=10_000),
)
@settings(max_examples=300, deadline=None)
def test_fast_reader_agrees_with_the_general_reader(
    value: Any, ascii_only: bool, compact: bool, number: int
) -> None:
    separators = (",", ":") if compact else (", ", ": ")
    line = json.dumps(value, ensure_ascii=ascii_only, separators=separators)
    agrees(line, number)


def test_generated_rows_are_mostly_read_fast() -> None:
    """The agreement above is not vacuous: ordinary rows do take the fast path."""
    lines = [
        json.dumps({"n": n, "text": f"row {n} ü", "list": [n, n / 2, None]}) for n in range(50)
    ]
    assert all(agrees(line, n) for n, line in enumerate(lines))


def test_dataset_analysis_is_the_same_with_and_without_the_fast_reader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = [
        HUB_ROW,
        '{"name": "bad role", "interactions": [{"input": {"messages": '
        '[{"role": "robot", "content": "hi"}]}, "output": {"response": '
        '{"role": "assistant", "content": 3}}}]}',
        '{"interactions": [{"input": {"messages": []}}], "tags": "x"}',
        '{"name": "dup", "name": "dup2", "interactions": [{"input": {"messages": '
        '[{"role": "user", "content": "x"}]}, "checks": [{"identifier": "nope"}]}]}',
        '{"name": "no interactions"}',
        "not json",
        '{"interactions": [{"input": {"messages": [{"role": "user"}]}, '
        '"output": {"metadata": 1}, "extra": true}]}',
    ]
    text = "\n".join(rows) + "\n"

    def everything(doc: Any) -> Any:
        problems = sorted((p.range, p.code, p.message, p.severity) for p in doc.every_problem())
        entries = [(e.name, e.tags, e.range, [c.head for c in e.checks]) for e in doc.scenarios]
        return problems, entries

    with_fast = everything(analyze(text, "d.dataset.jsonl"))
    monkeypatch.setattr(source, "read_row", lambda *args, **kwargs: None)
    assert everything(analyze(text, "d.dataset.jsonl")) == with_fast
    assert with_fast[0]  # the rows above do have problems
