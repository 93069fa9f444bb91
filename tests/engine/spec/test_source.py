"""Tests for checkspec.engine.spec: located parsing of YAML / JSON / JSONL spec text."""

from __future__ import annotations

import json

import pytest

from checkspec.engine.spec import (
    Node,
    Position,
    Problem,
    Range,
    Severity,
    TextEdit,
    parse_jsonl_lines,
    parse_source,
)
from checkspec.engine.spec.source import MAX_NODES

NESTED = """\
name: demo  # a comment
checks:
  - id: first
    params: {min: 1, tags: [a, b]}
  - id: second
    note: |
      two lines
      of text
"""


def rng(line: int, start: int, end_line: int, end: int) -> Range:
    return Range(Position(line, start), Position(end_line, end))


def codes(problems: list[Problem]) -> list[str]:
    return [p.code for p in problems]


# -- values ------------------------------------------------------------------------------------


def test_scalar_types() -> None:
    src = parse_source(
        'i: 1\nf: 1.5\nt: true\nn: null\ne:\ns: hello\nq: "1"\nhex: 0x1F\ndate: 2024-01-02\n'
    )
    assert src.problems == []
    assert src.root is not None
    value = src.root.value
    assert value == {
        "i": 1,
        "f": 1.5,
        "t": True,
        "n": None,
        "e": None,
        "s": "hello",
        "q": "1",
        "hex": 31,
        "date": "2024-01-02",  # dates stay text so values remain JSON-like
    }
    assert type(value["i"]) is int and type(value["t"]) is bool and type(value["q"]) is str


def test_explicit_safe_tags_are_constructed() -> None:
    src = parse_source("a: !!str 12\nb: !!int '7'\nc: !!float 2\n")
    assert src.problems == []
    assert src.root is not None and src.root.value == {"a": "12", "b": 7, "c": 2.0}


def test_value_is_built_once_and_shared_with_children() -> None:
    src = parse_source(NESTED)
    assert src.root is not None
    checks = src.root.get("checks")
    assert checks is not None
    assert checks.value is src.root.value["checks"]
    assert checks.items[0].value is checks.value[0]


def test_empty_and_comment_only_documents() -> None:
    for text in ("", "   \n", "# only a comment\n", "---\n"):
        src = parse_source(text)
        assert src.root is None and src.problems == [], text


def test_merge_keys_follow_safe_load() -> None:
    src = parse_source("base: &b {x: 1, y: 2}\nitem:\n  <<: *b\n  y: 3\n")
    assert src.problems == []
    assert src.root is not None
    item = src.root.get("item")
    assert item is not None and item.value == {"x": 1, "y": 3}
    x = item.get("x")
    assert x is not None and x.range == rng(0, 13, 0, 14)  # points at the anchored mapping


# -- positions ---------------------------------------------------------------------------------


def test_yaml_key_and_value_positions() -> None:
    src = parse_source(NESTED)
    root = src.root
    assert root is not None and root.kind == "mapping"
    assert root.range.start == Position(0, 0)

    name_key = root.key_node("name")
    name = root.get("name")
    assert name_key is not None and name_key.range == rng(0, 0, 0, 4)
    assert name is not None and name.range == rng(0, 6, 0, 10)

    checks = root.get("checks")
    assert checks is not None and checks.kind == "sequence"
    assert checks.range.start == Position(2, 2)
    first = checks.items[0]
    assert first.range.start == Position(2, 4)
    first_id = first.get("id")
    assert first_id is not None and first_id.range == rng(2, 8, 2, 13)

    params = first.get("params")
    assert params is not None and params.kind == "mapping"
    assert params.range == rng(3, 12, 3, 34)
    tags = params.get("tags")
    assert tags is not None and tags.range == rng(3, 27, 3, 33)
    assert tags.items[1].range == rng(3, 31, 3, 32)

    note = checks.items[1].get("note")
    assert note is not None
    assert note.value == "two lines\nof text\n"
    assert note.range.start == Position(5, 10)


def test_get_find_and_key_node() -> None:
    src = parse_source(NESTED)
    root = src.root
    assert root is not None
    assert root.get("missing") is None
    assert root.find(["checks", 0, "params", "tags", 1]) is not None
    found = root.find(["checks", 0, "params", "tags", 1])
    assert found is not None and found.value == "b"
    assert root.find(["checks", 5]) is None
    assert root.find(["checks", "0"]) is None  # sequences take int indexes only
    assert root.find(["name", "x"]) is None  # cannot descend into a scalar
    assert root.find([]) is root
    assert src.find(["checks", 1, "id"]) is not None
    scalar = root.get("name")
    assert scalar is not None and scalar.get("x") is None and scalar.key_node("x") is None


def test_node_at_and_path_at() -> None:
    src = parse_source(NESTED)
    # On a key: the key node, and the path ends with that key.
    key = src.node_at(0, 2)
    assert key is not None and key.value == "name"
    assert src.path_at(0, 2) == ["name"]
    assert src.path_at(2, 5) == ["checks", 0, "id"]
    # On a value inside a sequence item, in a flow mapping, in a flow sequence.
    value = src.node_at(2, 10)
    assert value is not None and value.value == "first"
    assert src.path_at(2, 10) == ["checks", 0, "id"]
    assert src.path_at(3, 18) == ["checks", 0, "params", "min"]
    assert src.path_at(3, 31) == ["checks", 0, "params", "tags", 1]
    item = src.node_at(3, 31)
    assert item is not None and item.value == "b"
    # Just after a token (where a cursor sits while typing) still belongs to it.
    assert src.path_at(2, 13) == ["checks", 0, "id"]
    # Between tokens of a flow sequence: the collection itself.
    tags = src.node_at(3, 30)
    assert tags is not None and tags.kind == "sequence" and tags.value == ["a", "b"]
    # Outside the document.
    assert src.node_at(50, 0) is None and src.path_at(50, 0) == []


def test_empty_value_has_a_position_for_completion() -> None:
    src = parse_source("a:\n  b:\nc: 1\n")
    assert src.path_at(1, 4) == ["a", "b"]
    b = src.find(["a", "b"])
    assert b is not None and b.value is None and b.range == rng(1, 4, 1, 4)


def test_alias_node_sits_at_the_alias() -> None:
    src = parse_source("base: &b [1, 2]\ncopy: *b\n")
    assert src.problems == []
    copy = src.find(["copy"])
    assert copy is not None and copy.kind == "sequence" and copy.value == [1, 2]
    assert copy.range == rng(1, 6, 1, 8)
    assert src.path_at(1, 7) == ["copy"]


# -- JSON and JSONL ----------------------------------------------------------------------------


def test_json_positions_and_values() -> None:
    text = '{\n  "a": [1, 2.5e3, "x\\u00e9"],\n  "b": {"c": null}\n}'
    src = parse_source(text, json=True)
    assert src.problems == []
    assert src.root is not None
    assert src.root.value == {"a": [1, 2500.0, "xé"], "b": {"c": None}}
    a_key = src.root.key_node("a")
    assert a_key is not None and a_key.range == rng(1, 2, 1, 5)
    a = src.root.get("a")
    assert a is not None and a.range == rng(1, 7, 1, 28)
    assert a.items[1].range == rng(1, 11, 1, 16)  # 2.5e3 read with JSON rules, not YAML's
    c = src.find(["b", "c"])
    assert c is not None and c.range == rng(2, 13, 2, 17)
    assert src.path_at(2, 15) == ["b", "c"]


def test_json_syntax_error_position() -> None:
    text = '{\n  "a": 1,\n  "b": [1, 2,]\n}'
    src = parse_source(text, json=True)
    assert src.root is None
    assert codes(src.problems) == ["syntax"]
    problem = src.problems[0]
    # The json module's own words and place, which change between Pythons ("Expecting
    # value" at the `]` before 3.13, "Illegal trailing comma before end of array" at the
    # `,` since), in 0-based editor positions.
    with pytest.raises(json.JSONDecodeError) as error:
        json.loads(text)
    assert problem.message == error.value.msg
    assert problem.range.start == Position(error.value.lineno - 1, error.value.colno - 1)
    assert problem.range.start in (Position(2, 12), Position(2, 13))


def test_json_that_yaml_cannot_read_falls_back_to_json_values() -> None:
    key = "k" * 2000  # YAML keys stop at 1024 characters
    src = parse_source(f'{{"{key}": [1, {{"x": true}}]}}', json=True)
    assert src.problems == []
    assert src.root is not None and src.root.value == {key: [1, {"x": True}]}
    x = src.find([key, 1, "x"])
    assert x is not None and x.value is True
    assert x.range == rng(0, 0, 0, 2022)  # whole document: exact positions are unknown


def test_jsonl_one_bad_line() -> None:
    text = '{"a": 1}\n\n{"a": oops}\n  [1, 2]\r\n'
    rows, problems = parse_jsonl_lines(text)
    assert [line for line, _ in rows] == [0, 3]
    assert rows[0][1].value == {"a": 1}
    second = rows[1][1]
    assert second.value == [1, 2]
    assert second.range == rng(3, 2, 3, 8)
    assert second.items[1].range == rng(3, 6, 3, 7)
    assert codes(problems) == ["syntax"]
    assert problems[0].range.start == Position(2, 6)


# -- problems ----------------------------------------------------------------------------------


def test_yaml_syntax_error_position() -> None:
    src = parse_source("a: 1\nb: [1, 2\nc: 3\n")
    assert src.root is None
    assert codes(src.problems) == ["syntax"]
    assert src.problems[0].range.start == Position(1, 3)  # the `[` never closed
    assert "expected ',' or ']'" in src.problems[0].message

    src = parse_source("a: 1\nb\n")
    assert src.problems[0].range.start == Position(2, 0)
    assert src.problems[0].message == ("could not find expected ':' (while scanning a simple key)")


UNCLOSED_QUOTE = """\
name: refund
steps:
  - interacts:
      - inputs: "How long do refunds take?
        outputs: thirty days
    checks:
      - {kind: equals, expected_value: thirty days}
"""


@pytest.mark.parametrize("line_reader", [True, False])
@pytest.mark.parametrize(
    ("text", "start", "opened", "found"),
    [
        (
            UNCLOSED_QUOTE,
            Position(3, 16),
            "the quoted string",
            "found unexpected end of stream at 8:1",
        ),
        (UNCLOSED_QUOTE.replace('"', "'"), Position(3, 16), "the quoted string", "at 8:1"),
        ("a: 1\ntags: [a, b\nsteps: []\n", Position(1, 6), "the `[` list", "at 3:6"),
        ("a: 1\nmeta: {x: 1\nsteps: []\n", Position(1, 6), "the `{` mapping", "at 3:6"),
        ("a: 1\nlast: [a,\n  b", Position(1, 6), "the `[` list", "at 3:4"),
    ],
)
def test_an_unclosed_quote_or_bracket_is_placed_where_it_opens(
    text: str, start: Position, opened: str, found: str, line_reader: bool
) -> None:
    src = parse_source(text, line_reader=line_reader)
    assert codes(src.problems) == ["syntax"]
    problem = src.problems[0]
    assert problem.range == Range(start, Position(start.line, start.character + 1))
    assert problem.message.startswith(f"{opened} opened here is never closed (")
    assert found in problem.message


@pytest.mark.parametrize(
    ("text", "at"),
    [
        ('a: [1, "x" y]\n', Position(0, 11)),  # closed: the error is where it was found
        ('a: "bad \\q escape"\n', Position(0, 3)),
        ('a: [1,\n    "x" y,\n    4]\n', Position(1, 8)),  # a later line inside it
    ],
)
def test_an_error_inside_a_closed_construct_stays_where_it_was_found(
    text: str, at: Position
) -> None:
    src = parse_source(text)
    assert codes(src.problems) == ["syntax"]
    assert "never closed" not in src.problems[0].message
    assert src.problems[0].range.start.line == at.line


def test_unsafe_python_tag_is_refused() -> None:
    text = "a: !!python/object/apply:os.system ['echo hi']\nb: !custom 3\nc: ok\n"
    src = parse_source(text)
    assert codes(src.problems) == ["unsafe-tag", "unsafe-tag"]
    assert src.problems[0].range == rng(0, 3, 0, 34)
    assert src.problems[1].range == rng(1, 3, 1, 12)
    assert src.root is not None
    assert src.root.value == {"a": None, "b": None, "c": "ok"}


def test_duplicate_key_warns_at_second_key() -> None:
    src = parse_source("a: 1\nb: 2\na: 3\n")
    assert codes(src.problems) == ["duplicate-key"]
    problem = src.problems[0]
    assert problem.severity is Severity.WARNING
    assert problem.range == rng(2, 0, 2, 1)
    assert src.root is not None and src.root.value == {"a": 3, "b": 2}
    a = src.root.get("a")
    assert a is not None and a.value == 3


def test_only_first_document_is_read() -> None:
    src = parse_source("a: 1\n---\nb: 2\n")
    assert src.root is not None and src.root.value == {"a": 1}
    assert codes(src.problems) == ["syntax"]
    assert src.problems[0].severity is Severity.WARNING
    assert src.problems[0].range.start == Position(1, 0)


def test_billion_laughs_is_refused() -> None:
    lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for prev, cur in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{cur}: &{cur} [{', '.join([f'*{prev}'] * 9)}]")
    src = parse_source("\n".join(lines))
    assert src.root is None
    assert codes(src.problems) == ["alias-bomb"]
    assert f"more than {MAX_NODES:,} nodes" in src.problems[0].message
    assert src.problems[0].range.start.line == 6  # the alias that crosses the limit


def test_recursive_alias_is_refused() -> None:
    src = parse_source("a: &a [1, *a]\n")
    assert src.root is None
    assert codes(src.problems) == ["alias-bomb"]
    assert src.problems[0].range == rng(0, 10, 0, 12)


def test_deep_flow_nesting_gives_too_deep() -> None:
    src = parse_source("[" * 10_000 + "]" * 10_000)
    assert src.root is None
    assert codes(src.problems) == ["too-deep"]


def test_too_deep_is_reported_where_the_limit_is_crossed() -> None:
    text = "".join(" " * i + "k:\n" for i in range(12))
    src = parse_source(text, max_depth=10)
    assert codes(src.problems) == ["too-deep"]
    assert src.problems[0].range.start == Position(10, 10)
    assert parse_source(text, max_depth=12).problems == []  # 12 mappings deep


def test_deep_json_gives_too_deep() -> None:
    src = parse_source("[" * 5000 + "]" * 5000, json=True)
    assert src.root is None
    assert codes(src.problems) == ["too-deep"]


def test_too_large() -> None:
    src = parse_source("é" * 1000, max_bytes=1500)  # 2000 UTF-8 bytes
    assert src.root is None
    assert codes(src.problems) == ["too-large"]
    assert src.problems[0].range == Range.point(0, 0)
    assert src.problems[0].message == (
        "file is 2 KB, over the 1.5 KB limit (setting max_file_size in checkspec.yaml, or "
        "the editor's checkspec.maxFileSize)"
    )
    big = parse_source("a" * 12_345_678)
    assert big.problems[0].message.startswith("file is 12.3 MB, over the 10 MB limit")
    rows, problems = parse_jsonl_lines("[1]\n" * 10, max_bytes=8)
    assert rows == [] and codes(problems) == ["too-large"]


def test_control_character_is_a_syntax_problem() -> None:
    src = parse_source("a: 1\nb: \x07\n")
    assert codes(src.problems) == ["syntax"]
    assert src.problems[0].range.start == Position(1, 3)


def test_problem_format() -> None:
    error = Problem("syntax", "bad thing", Range.point(2, 4))
    assert error.format("spec.yaml") == "spec.yaml:3:5: error: bad thing"
    warning = Problem("duplicate-key", "twice", Range.point(0, 0), Severity.WARNING)
    assert warning.format("a/b.yaml") == "a/b.yaml:1:1: warning: twice"


def test_problem_and_positions_are_values() -> None:
    edit = TextEdit(Range.point(1, 2), "x")
    problem = Problem("syntax", "m", Range.point(1, 2), fix=(edit,), fix_title="Fix it")
    assert problem == Problem("syntax", "m", Range.point(1, 2), fix=(edit,), fix_title="Fix it")
    assert Position(1, 2) < Position(1, 3) < Position(2, 0)
    with pytest.raises(AttributeError):
        problem.code = "other"  # type: ignore[misc]


def test_node_repr_is_short() -> None:
    node = Node("scalar", "x" * 100, Range.point(0, 0))
    assert len(repr(node)) < 80
