"""Where the cursor is while a spec file is being typed (server/analysis/context.py).

Each case marks the cursor with ‸ and gives what completion is told about that place:
the role (a key or a value), the path of the mapping around it, the keys already there,
what is typed so far and the range an item replaces.
"""

from __future__ import annotations

from typing import Any

import pytest

from checkspec.engine.spec.problems import Position
from checkspec.engine.spec.source import parse_source
from checkspec.server.analysis.context import CursorContext, cursor_context


def summary(ctx: CursorContext | None) -> dict[str, Any] | None:
    if ctx is None:
        return None
    last = ctx.frames[-1] if ctx.frames else None
    r = ctx.replace
    return {
        "role": ctx.role.value,
        "path": ctx.path,
        "keys": None if last is None or last.keys is None else sorted(map(str, last.keys)),
        "key": ctx.key,
        "in_list": ctx.in_list,
        "after_dash": ctx.after_dash,
        "prefix": ctx.prefix,
        "replace": f"{r.start.line}:{r.start.character}-{r.end.line}:{r.end.character}",
        "colon_follows": ctx.colon_follows,
        "needs_space": ctx.needs_space,
        "quoted": ctx.quoted,
    }


CASES = [
    (
        "key at top",
        "name: x\nst‸\n",
        False,
        {
            "role": "key",
            "path": [],
            "keys": ["name"],
            "key": None,
            "in_list": False,
            "after_dash": False,
            "prefix": "st",
            "replace": "1:0-1:2",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "value of kind",
        "name: x\nsteps:\n  - checks:\n      - kind: str‸\n",
        False,
        {
            "role": "value",
            "path": ["steps", 0, "checks", 0],
            "keys": ["kind"],
            "key": "kind",
            "in_list": False,
            "after_dash": False,
            "prefix": "str",
            "replace": "3:14-3:17",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "value of kind quoted",
        'name: x\nsteps:\n  - checks:\n      - kind: "str‸"\n',
        False,
        {
            "role": "value",
            "path": ["steps", 0, "checks", 0],
            "keys": ["kind"],
            "key": "kind",
            "in_list": False,
            "after_dash": False,
            "prefix": "str",
            "replace": "3:15-3:18",
            "colon_follows": False,
            "needs_space": False,
            "quoted": True,
        },
    ),
    (
        "key after dash",
        "name: x\nsteps:\n  - checks:\n      - kin‸\n",
        False,
        {
            "role": "key",
            "path": ["steps", 0, "checks", 0],
            "keys": [],
            "key": None,
            "in_list": False,
            "after_dash": True,
            "prefix": "kin",
            "replace": "3:8-3:11",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "key no space after dash",
        "steps:\n  -ch‸\n",
        False,
        {
            "role": "value",
            "path": [],
            "keys": ["steps"],
            "key": "steps",
            "in_list": False,
            "after_dash": False,
            "prefix": "-ch",
            "replace": "1:2-1:5",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "key with colon following",
        "name: x\nsteps:\n  - checks:\n      - kind: equals\n        expected_va‸: 3\n",
        False,
        {
            "role": "key",
            "path": ["steps", 0, "checks", 0],
            "keys": ["kind"],
            "key": None,
            "in_list": False,
            "after_dash": False,
            "prefix": "expected_va",
            "replace": "4:8-4:19",
            "colon_follows": True,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "key in mapping below kind",
        "steps:\n  - checks:\n      - kind: equals\n        ‸\n",
        False,
        {
            "role": "key",
            "path": ["steps", 0, "checks", 0],
            "keys": ["kind"],
            "key": None,
            "in_list": False,
            "after_dash": False,
            "prefix": "",
            "replace": "3:8-3:8",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "key above a later kind",
        "steps:\n  - checks:\n      - tar‸\n        kind: equals\n",
        False,
        {
            "role": "key",
            "path": ["steps", 0, "checks", 0],
            "keys": ["kind"],
            "key": None,
            "in_list": False,
            "after_dash": True,
            "prefix": "tar",
            "replace": "2:8-2:11",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "flow list value",
        "steps:\n  - checks:\n      - kind: toxicity\n        categories: [threats, ha‸]\n",
        False,
        {
            "role": "value",
            "path": ["steps", 0, "checks", 0, "categories"],
            "keys": None,
            "key": "categories",
            "in_list": True,
            "after_dash": False,
            "prefix": "ha",
            "replace": "3:30-3:32",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "flow list first",
        "tags: [‸]\n",
        False,
        {
            "role": "value",
            "path": ["tags"],
            "keys": None,
            "key": "tags",
            "in_list": True,
            "after_dash": False,
            "prefix": "",
            "replace": "0:7-0:7",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "flow list quoted",
        "tags: ['bi‸']\n",
        False,
        {
            "role": "value",
            "path": ["tags"],
            "keys": None,
            "key": "tags",
            "in_list": True,
            "after_dash": False,
            "prefix": "bi",
            "replace": "0:8-0:10",
            "colon_follows": False,
            "needs_space": False,
            "quoted": True,
        },
    ),
    (
        "value no space",
        "name:‸\n",
        False,
        {
            "role": "value",
            "path": [],
            "keys": ["name"],
            "key": "name",
            "in_list": False,
            "after_dash": False,
            "prefix": "",
            "replace": "0:5-0:5",
            "colon_follows": False,
            "needs_space": True,
            "quoted": False,
        },
    ),
    (
        "value with token end",
        "name: ab‸cd ef\n",
        False,
        {
            "role": "value",
            "path": [],
            "keys": ["name"],
            "key": "name",
            "in_list": False,
            "after_dash": False,
            "prefix": "ab",
            "replace": "0:6-0:10",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "list at key column",
        "steps:\n- checks:\n  - kind: eq‸\n",
        False,
        {
            "role": "value",
            "path": ["steps", 0, "checks", 0],
            "keys": ["kind"],
            "key": "kind",
            "in_list": False,
            "after_dash": False,
            "prefix": "eq",
            "replace": "2:10-2:12",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "second item index",
        "steps:\n  - checks: []\n  - checks:\n      - kind: a\n      - kind: b‸\n",
        False,
        {
            "role": "value",
            "path": ["steps", 1, "checks", 1],
            "keys": ["kind"],
            "key": "kind",
            "in_list": False,
            "after_dash": False,
            "prefix": "b",
            "replace": "4:14-4:15",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "nested list dashes",
        "steps:\n  - - kin‸\n",
        False,
        {
            "role": "key",
            "path": ["steps", 0, 0],
            "keys": [],
            "key": None,
            "in_list": False,
            "after_dash": True,
            "prefix": "kin",
            "replace": "1:6-1:9",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "inside block scalar",
        "steps:\n  - checks:\n      - kind: llm_judge\n        prompt: |\n          he‸\n",
        False,
        None,
    ),
    (
        "after block scalar",
        "steps:\n"
        "  - checks:\n"
        "      - kind: llm_judge\n"
        "        prompt: |\n"
        "          hello\n"
        "        mod‸\n",
        False,
        {
            "role": "key",
            "path": ["steps", 0, "checks", 0],
            "keys": ["kind", "prompt"],
            "key": None,
            "in_list": False,
            "after_dash": False,
            "prefix": "mod",
            "replace": "5:8-5:11",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    ("comment line", "name: x\n# comm‸\n", False, None),
    (
        "quoted key",
        'steps:\n  - checks:\n      - "kind": eq‸\n',
        False,
        {
            "role": "value",
            "path": ["steps", 0, "checks", 0],
            "keys": ["kind"],
            "key": "kind",
            "in_list": False,
            "after_dash": False,
            "prefix": "eq",
            "replace": "2:16-2:18",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "single quoted key with escape",
        "'it''s': va‸\n",
        False,
        {
            "role": "value",
            "path": [],
            "keys": ["it's"],
            "key": "it's",
            "in_list": False,
            "after_dash": False,
            "prefix": "va",
            "replace": "0:9-0:11",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "typing quoted key",
        "steps:\n  - checks:\n      - 'ki‸\n",
        False,
        {
            "role": "key",
            "path": ["steps", 0, "checks", 0],
            "keys": [],
            "key": None,
            "in_list": False,
            "after_dash": True,
            "prefix": "ki",
            "replace": "2:8-2:11",
            "colon_follows": False,
            "needs_space": False,
            "quoted": True,
        },
    ),
    (
        "flow mapping value",
        "steps:\n  - checks:\n      - {kind: str‸}\n",
        False,
        {
            "role": "value",
            "path": ["steps", 0, "checks", 0],
            "keys": ["kind"],
            "key": "kind",
            "in_list": False,
            "after_dash": False,
            "prefix": "str",
            "replace": "2:15-2:18",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "flow mapping between entries",
        "steps:\n  - checks:\n      - {kind: equals, ‸}\n",
        False,
        {
            "role": "key",
            "path": ["steps", 0, "checks", 0],
            "keys": ["kind"],
            "key": None,
            "in_list": False,
            "after_dash": False,
            "prefix": "",
            "replace": "2:23-2:23",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "json key",
        '{"name": "x", "st‸": 1}',
        True,
        {
            "role": "key",
            "path": [],
            "keys": ["name", "st"],
            "key": None,
            "in_list": False,
            "after_dash": False,
            "prefix": "st",
            "replace": "0:15-0:17",
            "colon_follows": True,
            "needs_space": False,
            "quoted": True,
        },
    ),
    (
        "json value",
        '{"steps": [{"checks": [{"kind": "str‸"}]}]}',
        True,
        {
            "role": "value",
            "path": ["steps", 0, "checks", 0],
            "keys": ["kind"],
            "key": "kind",
            "in_list": False,
            "after_dash": False,
            "prefix": "str",
            "replace": "0:33-0:36",
            "colon_follows": False,
            "needs_space": False,
            "quoted": True,
        },
    ),
    (
        "json list item",
        '{"tags": ["a‸"]}',
        True,
        {
            "role": "value",
            "path": ["tags"],
            "keys": None,
            "key": "tags",
            "in_list": True,
            "after_dash": False,
            "prefix": "a",
            "replace": "0:11-0:12",
            "colon_follows": False,
            "needs_space": False,
            "quoted": True,
        },
    ),
    (
        "json between",
        '{"steps": [{‸}]}',
        True,
        {
            "role": "key",
            "path": ["steps", 0],
            "keys": [],
            "key": None,
            "in_list": False,
            "after_dash": False,
            "prefix": "",
            "replace": "0:12-0:12",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    ("past the end", "name: x\n", False, None),
    (
        "document marker",
        "---\nna‸\n",
        False,
        {
            "role": "key",
            "path": [],
            "keys": [],
            "key": None,
            "in_list": False,
            "after_dash": False,
            "prefix": "na",
            "replace": "1:0-1:2",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "key after comment with colon",
        "name: x # a: b\nst‸\n",
        False,
        {
            "role": "key",
            "path": [],
            "keys": ["name"],
            "key": None,
            "in_list": False,
            "after_dash": False,
            "prefix": "st",
            "replace": "1:0-1:2",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
    (
        "deeper lines after",
        "steps:\n  - checks:\n      - kind: eq‸\n        expected_value: 1\n  - checks: []\n",
        False,
        {
            "role": "value",
            "path": ["steps", 0, "checks", 0],
            "keys": ["expected_value", "kind"],
            "key": "kind",
            "in_list": False,
            "after_dash": False,
            "prefix": "eq",
            "replace": "2:14-2:16",
            "colon_follows": False,
            "needs_space": False,
            "quoted": False,
        },
    ),
]


@pytest.mark.parametrize(("name", "marked", "json", "expected"), CASES, ids=[c[0] for c in CASES])
def test_cursor_context(name: str, marked: str, json: bool, expected: dict | None) -> None:
    if "‸" in marked:
        index = marked.index("‸")
        text = marked[:index] + marked[index + 1 :]
        position = Position(
            marked.count("\n", 0, index), index - (marked.rfind("\n", 0, index) + 1)
        )
    else:  # past the end of the text
        text, position = marked, Position(marked.count("\n") + 2, 0)
    found = cursor_context(text, position, source=parse_source(text, json=json), json=json)
    assert summary(found) == expected
    if found is not None:
        assert found.position == position
        assert found.line == text.split("\n")[position.line]


SUITE = """\
name: s
target: python:a:b
scenarios:
  - name: one
    steps:
      - interacts:
          - inputs: a
        checks:
          - kind: string_matching
            keyword: a
  - name: two
    tags: [x]
    steps:
      - checks:
          - kind: equals
            expected_value: 1
            target_key: trace.last.outputs
  -   name: three
      steps:
        - interacts: []
          checks:
            - kind: regex_matching
              pattern: b
            - kind:
  - name: four
    steps: []
"""


def test_reading_from_the_scenario_holding_the_cursor_is_reading_from_the_top() -> None:
    # In a long suite the outline is rebuilt from the parsed tree at the scenario holding
    # the cursor instead of reading every line above it: the answer must be the same.
    source = parse_source(SUITE)
    lines = SUITE.split("\n")
    compared = 0
    for line, text in enumerate(lines):
        for character in range(len(text) + 1):
            position = Position(line, character)
            from_top = cursor_context(SUITE, position)
            resumed = cursor_context(SUITE, position, source=source)
            if from_top is not None:
                assert resumed == from_top, position
                compared += 1
    assert compared > 300


def test_a_stale_tree_is_not_trusted_for_resuming() -> None:
    # The tree is a keystroke old: the scenario it names no longer starts with `- `.
    source = parse_source(SUITE)
    edited = SUITE.replace("  - name: two", "    name: two")
    position = Position(15, 16)  # the value of `expected_value`
    assert cursor_context(edited, position, source=source) == cursor_context(edited, position)
