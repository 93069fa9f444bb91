"""`json_rows.row_value`: a JSON Lines row's value without its tree (what curation,
`hub export`, drafts and `--query` read of a 100,000-row dataset). When it reads a row,
the value is the one the located tree holds (source.read_jsonl_row); what YAML reads
otherwise, or what the limits may refuse, it leaves to the tree."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checkspec.engine.spec import json_rows, source
from checkspec.engine.spec.source import MAX_NODES, MAX_ROW_DEPTH
from tests.support.hub_rows import row, varied_row
from tests.support.json_values import JSON_VALUES


def value_only(line: str) -> tuple[bool, Any]:
    return json_rows.row_value(line, max_depth=MAX_ROW_DEPTH, max_nodes=MAX_NODES)


def agrees(line: str) -> bool:
    """Whether row_value read the line; when it did, the tree's root holds its value."""
    read, value = value_only(line)
    if not read:
        return False
    tree = source.read_jsonl_row(line, 0)
    assert tree.root is not None
    assert value == tree.root.value
    return True


@pytest.mark.parametrize(
    "line",
    [
        row(5),
        '{"a": 1, "a": 2}',  # a duplicate key: the later value, as the tree's
        json.dumps({"k" * 1100: 1}),
        '  {"é": "😀 ünï", "k": ["\\u00e9\\n\\"\\\\", 12345678901234567890]}  ',
        "[" * (MAX_ROW_DEPTH - 1) + "]" * (MAX_ROW_DEPTH - 1),
    ],
)
def test_it_reads_rows_as_the_tree_holds_them(line: str) -> None:
    assert agrees(line)


@pytest.mark.parametrize(
    "line",
    [
        '{"a": NaN}',
        '{"a": -Infinity}',
        '{"a":\t1}',
        '{"a": "x\u2028y"}',
        '{"a": "\\ud83d\\ude00"}',
        "[" * MAX_ROW_DEPTH + "]" * MAX_ROW_DEPTH,  # perhaps too deep: the tree says
        '{"a": 1',
        "[1] [2]",
    ],
)
def test_it_leaves_to_the_tree_what_the_tree_may_read_otherwise(line: str) -> None:
    assert value_only(line) == (False, None)


def test_a_row_over_the_node_limit_is_left_to_the_tree() -> None:
    line = json.dumps({"tags": [str(n) for n in range(200)]})
    assert json_rows.row_value(line, max_depth=MAX_ROW_DEPTH, max_nodes=100) == (False, None)


@given(value=JSON_VALUES, ascii_only=st.booleans())
@settings(max_examples=300, deadline=None)
def test_it_agrees_with_the_tree_on_generated_rows(value: Any, ascii_only: bool) -> None:
    agrees(json.dumps(value, ensure_ascii=ascii_only))


def test_the_rows_of_a_dataset_are_mostly_read_without_their_tree() -> None:
    lines = [varied_row(n) for n in range(400)]
    read = [agrees(line) for line in lines]
    assert sum(read) > 350 and not all(read)  # the U+2028 rows go to the tree


def places_agree(line: str) -> bool:
    """Whether row_places gave the places of a row row_value read; when it did, they are
    its tree's: the root's columns and its top-level `name` value's."""
    if not value_only(line)[0]:
        return False
    places = json_rows.row_places(line, "name")
    tree = source.read_jsonl_row(line, 0).root
    assert places is not None and tree is not None
    (start, end), name = places
    assert (start, end) == (tree.range.start.character, tree.range.end.character)
    found = tree.get("name") if tree.kind == "mapping" else None
    if found is None:
        assert name is None
    else:
        assert name == (found.range.start.character, found.range.end.character)
    return True


@pytest.mark.parametrize(
    "line",
    [
        row(3),
        '  {"a": {"name": 1}, "name": [1, {"name": 2}], "b": 3} ',
        '{"name": "first", "x": 1, "name": "last"}',
        '{"n\\u0061me": "escaped", "name": "plain", "é": "\\u00e9"}',
        '{"name": "plain", "n\\u0061me": "escaped later"}',
        '{"other": 1}',
        '"a string row"',
        "[1, 2]",
    ],
)
def test_row_places_are_the_trees(line: str) -> None:
    assert places_agree(line)


@given(
    value=JSON_VALUES,
    name=JSON_VALUES,
    at=st.integers(0, 4),
    twice=st.booleans(),
    ascii_only=st.booleans(),
)
@settings(max_examples=300, deadline=None)
def test_row_places_agree_with_the_tree_on_generated_rows(
    value: Any, name: Any, at: int, twice: bool, ascii_only: bool
) -> None:
    if isinstance(value, dict):
        items = list(value.items())
        items.insert(min(at, len(items)), ("name", name))
        line = "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in items)
        if twice:
            line += f', "name": {json.dumps(value)}'
        line += "}"
        if not ascii_only:
            line = json.dumps(json.loads(line), ensure_ascii=False) if not twice else line
    else:
        line = json.dumps(value, ensure_ascii=ascii_only)
    places_agree(line)


_ROW = row(2)[:-1]  # without its closing brace


@pytest.mark.parametrize(
    "line",
    [
        _ROW + ', "status": "draft"}',
        _ROW + "}",
        _ROW + ', "st\\u0061tus": "draft"}',
        _ROW + ', "description": "status"}',
        _ROW + ', "status": "active"}',
    ],
)
def test_a_folded_rows_key_is_its_trees(line: str) -> None:
    """A draft's status read from a folded row (never its nodes) is the tree's."""
    from checkspec.engine.spec.document import analyze

    (entry,) = analyze(line + "\n", "/w/d.dataset.jsonl").scenarios
    root = entry.node
    folded, status = json_rows.folded_key(root, "status")
    assert folded and type(root) is not json_rows.Node  # still folded: read from the line
    tree = source.read_jsonl_row(line, 0).root
    assert tree is not None
    found = tree.get("status")
    assert status == (None if found is None else found.value)
