"""The byte-preserving edits (engine/curate/edits.py) on the shapes a person writes: flow
mappings on one line or several, an empty one, `key:` with no value, flow lists empty
or one item a line, checks re-enabled in flow and block style, scenarios deleted under
a lone dash, from JSON Lines and from a flow list; and what is refused (a key that is
not a list, a scenario that is not a mapping, overlapping edits). Each case gives the
whole text after the edit: every other byte is kept."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from checkspec.engine.curate import edits
from checkspec.engine.curate.files import CurateError, parse_spec

HEAD = "name: s\nscenarios:\n"
Op = Callable[..., Any]


def edited(text: str, op: Op, *args: Any, name: str = "s.suite.yaml") -> str:
    spec = parse_spec(Path(name), text.encode("utf-8"), text)
    editor = edits.Editor(spec)
    op(editor, spec.items[0], *args)
    return editor.result()


CHECK = "    steps:\n      - checks:\n          - "
CASES = [
    # tags into a flow mapping: after its name, on its line or a line of its own
    (
        "  - {name: a, steps: []}\n",
        edits.add_tags,
        (["x"],),
        "  - {name: a, tags: [x], steps: []}\n",
    ),
    (
        "  - {\n      name: a,\n      steps: []\n    }\n",
        edits.add_tags,
        (["x"],),
        "  - {\n      name: a,\n      tags: [x],\n      steps: []\n    }\n",
    ),
    ("  - {}\n", edits.add_tags, (["x"],), "  - {tags: [x]}\n"),
    # `tags:` with nothing after it, an empty flow list, one item a line
    (
        "  - name: a\n    tags:\n    steps: []\n",
        edits.add_tags,
        (["x"],),
        "  - name: a\n    tags: [x]\n    steps: []\n",
    ),
    (
        "  - name: a\n    tags: []\n",
        edits.add_tags,
        (["x", "y"],),
        '  - name: a\n    tags: [x, "y"]\n',  # y alone would read as true
    ),
    (
        "  - name: a\n    tags: [\n      a,\n      b\n    ]\n",
        edits.add_tags,
        (["x"],),
        "  - name: a\n    tags: [\n      a,\n      b,\n      x\n    ]\n",
    ),
    # tags out of a flow list: in the middle, at the end, every one, none there
    (
        "  - name: a\n    tags: [a, b, c]\n",
        edits.remove_tags,
        (["b"],),
        "  - name: a\n    tags: [a, c]\n",
    ),
    (
        "  - name: a\n    tags: [a, b, c]\n",
        edits.remove_tags,
        (["b", "c"],),
        "  - name: a\n    tags: [a]\n",
    ),
    (
        "  - name: a\n    tags: [a, b]\n",
        edits.remove_tags,
        (["a", "b"],),
        "  - name: a\n    tags: []\n",
    ),
    ("  - name: a\n    tags: [a]\n", edits.remove_tags, (["z"],), "  - name: a\n    tags: [a]\n"),
    # a status key with no value gets one
    (
        "  - name: a\n    status:\n    steps: []\n",
        edits.set_status,
        ("draft",),
        "  - name: a\n    status: draft\n    steps: []\n",
    ),
    # a check enabled again: `enabled: false` goes, wherever it is in a flow mapping...
    (
        "  - name: a\n" + CHECK + "{kind: equals, enabled: false, expected_value: a}\n",
        edits.set_checks_enabled,
        (["equals"], True),
        "  - name: a\n" + CHECK + "{kind: equals, expected_value: a}\n",
    ),
    (
        "  - name: a\n" + CHECK + "{kind: equals, expected_value: a, enabled: false}\n",
        edits.set_checks_enabled,
        (["equals"], True),
        "  - name: a\n" + CHECK + "{kind: equals, expected_value: a}\n",
    ),
    # ... and in a block mapping by its name; on the dash's line it is set true instead
    (
        "  - name: a\n"
        + CHECK
        + "kind: equals\n            enabled: false\n            name: eq\n",
        edits.set_checks_enabled,
        (["eq"], True),
        "  - name: a\n" + CHECK + "kind: equals\n            name: eq\n",
    ),
    (
        "  - name: a\n" + CHECK + "enabled: false\n            kind: equals\n",
        edits.set_checks_enabled,
        (["equals"], True),
        "  - name: a\n" + CHECK + "enabled: true\n            kind: equals\n",
    ),
    # a comment into a flow scenario: a flow mapping
    (
        "  - {name: a}\n",
        edits.add_comment,
        ({"author": "me", "content": "hi"},),
        "  - {name: a, comments: [{author: me, content: hi}]}\n",
    ),
]


@pytest.mark.parametrize(("before", "op", "args", "after"), CASES)
def test_an_edit_keeps_every_other_byte(before: str, op: Op, args: tuple, after: str) -> None:
    assert edited(HEAD + before, op, *args) == HEAD + after


def test_what_cannot_be_edited_is_refused() -> None:
    with pytest.raises(CurateError, match="'tags' is not a list at line 4"):
        edited(HEAD + "  - name: a\n    tags: x\n", edits.add_tags, ["y"])
    with pytest.raises(CurateError, match="line 3: the scenario is not a mapping"):
        edited(HEAD + "  - 5\n", edits.add_tags, ["y"])
    with pytest.raises(CurateError, match="overlapping edits"):
        edits.apply_edits("abc", [edits.TextEdit(0, 2, "x"), edits.TextEdit(1, 3, "y")])


def deleted(text: str, indexes: list[int], name: str = "s.suite.yaml") -> str:
    spec = parse_spec(Path(name), text.encode("utf-8"), text)
    editor = edits.Editor(spec)
    edits.delete_items(editor, [spec.items[i] for i in indexes])
    return editor.result()


def test_scenarios_are_deleted_from_each_shape_of_list() -> None:
    lone_dash = HEAD + "  -\n    name: a\n    steps: []\n  - name: b\n"
    assert deleted(lone_dash, [0]) == HEAD + "  - name: b\n"
    rows = '{"name": "a"}\n{"name": "b"}\n{"name": "c"}\n'
    assert deleted(rows, [0, 2], name="d.dataset.jsonl") == '{"name": "b"}\n'
    flow = "name: s\nscenarios: [{name: a}, {name: b}, {name: c}]\n"
    assert deleted(flow, [0, 1]) == "name: s\nscenarios: [{name: c}]\n"
    assert deleted(flow, [2]) == "name: s\nscenarios: [{name: a}, {name: b}]\n"


def test_values_are_written_as_yaml_and_json_read_them_back() -> None:
    assert [edits.yaml_scalar(v) for v in (3, 2.5, True, None, "on", "plain words")] == [
        "3",
        "2.5",
        "true",
        "null",
        '"on"',
        "plain words",
    ]
    assert edits.json_value([1, None, {"a": True, "b": "\u2028"}]) == (
        '[1, null, {"a": true, "b": "\\u2028"}]'
    )
