"""The located tree, node by node: kind, value and 0-based range of every key and value,
and the problems, for each construct of YAML and JSON a spec file may use
(engine/spec/source.py, tree.py)."""

from __future__ import annotations

import pytest

from checkspec.engine.spec.source import parse_source
from checkspec.engine.spec.tree import Node


def span(node: Node) -> str:
    r = node.range
    return f"{r.start.line}:{r.start.character}-{r.end.line}:{r.end.character}"


def dump(node: Node, out: list[str], indent: str = "") -> list[str]:
    if node.kind == "mapping":
        out.append(f"{indent}mapping {span(node)}")
        for key, value in node.entries:
            out.append(f"{indent}  key {key.value!r} {span(key)}")
            dump(value, out, indent + "    ")
    elif node.kind == "sequence":
        out.append(f"{indent}sequence {span(node)}")
        for item in node.items:
            dump(item, out, indent + "  ")
    else:
        out.append(f"{indent}{node.kind} {node.value!r} {span(node)}")
    return out


TREES = [
    (
        "block",
        False,
        "name: x\nsteps:\n  - interacts:\n      - inputs: hi\n    checks: []\nempty:\nnum: 3.5\nflag: yes\nnull: ~\n",
        [
            "mapping 0:0-9:0",
            "  key 'name' 0:0-0:4",
            "    scalar 'x' 0:6-0:7",
            "  key 'steps' 1:0-1:5",
            "    sequence 2:2-5:0",
            "      mapping 2:4-5:0",
            "        key 'interacts' 2:4-2:13",
            "          sequence 3:6-4:4",
            "            mapping 3:8-4:4",
            "              key 'inputs' 3:8-3:14",
            "                scalar 'hi' 3:16-3:18",
            "        key 'checks' 4:4-4:10",
            "          sequence 4:12-4:14",
            "  key 'empty' 5:0-5:5",
            "    scalar None 5:6-5:6",
            "  key 'num' 6:0-6:3",
            "    scalar 3.5 6:5-6:8",
            "  key 'flag' 7:0-7:4",
            "    scalar True 7:6-7:9",
            "  key None 8:0-8:4",
            "    scalar None 8:6-8:7",
        ],
        [],
    ),
    (
        "flow",
        False,
        "a: {b: [1, 'two', \"three\"], c: {}}\n",
        [
            "mapping 0:0-1:0",
            "  key 'a' 0:0-0:1",
            "    mapping 0:3-0:34",
            "      key 'b' 0:4-0:5",
            "        sequence 0:7-0:26",
            "          scalar 1 0:8-0:9",
            "          scalar 'two' 0:11-0:16",
            "          scalar 'three' 0:18-0:25",
            "      key 'c' 0:28-0:29",
            "        mapping 0:31-0:33",
        ],
        [],
    ),
    (
        "block scalars",
        False,
        "a: |\n  line1\n  line2\nb: >-\n  folded\n  text\nc: end\n",
        [
            "mapping 0:0-7:0",
            "  key 'a' 0:0-0:1",
            "    scalar 'line1\\nline2\\n' 0:3-3:0",
            "  key 'b' 3:0-3:1",
            "    scalar 'folded text' 3:3-6:0",
            "  key 'c' 6:0-6:1",
            "    scalar 'end' 6:3-6:6",
        ],
        [],
    ),
    (
        "multiline plain",
        False,
        "a: one\n  two\nb: 1\n",
        [
            "mapping 0:0-3:0",
            "  key 'a' 0:0-0:1",
            "    scalar 'one two' 0:3-1:5",
            "  key 'b' 2:0-2:1",
            "    scalar 1 2:3-2:4",
        ],
        [],
    ),
    (
        "anchors merge",
        False,
        "base: &b {x: 1, y: 2}\nderived:\n  <<: *b\n  y: 3\nlist: &l [1]\nref: *l\n",
        [
            "mapping 0:0-6:0",
            "  key 'base' 0:0-0:4",
            "    mapping 0:6-0:21",
            "      key 'x' 0:10-0:11",
            "        scalar 1 0:13-0:14",
            "      key 'y' 0:16-0:17",
            "        scalar 2 0:19-0:20",
            "  key 'derived' 1:0-1:7",
            "    mapping 2:2-4:0",
            "      key 'x' 0:10-0:11",
            "        scalar 1 0:13-0:14",
            "      key 'y' 0:16-0:17",
            "        scalar 2 0:19-0:20",
            "      key 'y' 3:2-3:3",
            "        scalar 3 3:5-3:6",
            "  key 'list' 4:0-4:4",
            "    sequence 4:6-4:12",
            "      scalar 1 4:10-4:11",
            "  key 'ref' 5:0-5:3",
            "    sequence 5:5-5:7",
            "      scalar 1 4:10-4:11",
        ],
        [],
    ),
    (
        "tags",
        False,
        "a: !!str 12\nb: !!int '7'\nc: !!float 1\nd: !!null ''\ne: !!bool 'true'\nf: !!timestamp 2020-01-01\n",
        [
            "mapping 0:0-6:0",
            "  key 'a' 0:0-0:1",
            "    scalar '12' 0:3-0:11",
            "  key 'b' 1:0-1:1",
            "    scalar 7 1:3-1:12",
            "  key 'c' 2:0-2:1",
            "    scalar 1.0 2:3-2:12",
            "  key 'd' 3:0-3:1",
            "    scalar None 3:3-3:12",
            "  key 'e' 4:0-4:1",
            "    scalar True 4:3-4:16",
            "  key 'f' 5:0-5:1",
            "    scalar '2020-01-01' 5:3-5:25",
        ],
        [],
    ),
    (
        "unsafe tag",
        False,
        "a: !!python/object:os.system x\nb: !custom {k: v}\n",
        [
            "mapping 0:0-2:0",
            "  key 'a' 0:0-0:1",
            "    scalar None 0:3-0:30",
            "  key 'b' 1:0-1:1",
            "    scalar None 1:3-1:17",
        ],
        [
            "0:3-0:30 error unsafe-tag: tag !!python/object:os.system is refused: spec files are read as plain data, never as Python objects",
            "1:3-1:10 error unsafe-tag: tag !custom is not allowed on a mapping here (only plain YAML data tags are read)",
        ],
    ),
    (
        "json",
        True,
        '{\n  "a": [1, {"b": null}],\n  "c": "d"\n}',
        [
            "mapping 0:0-3:1",
            "  key 'a' 1:2-1:5",
            "    sequence 1:7-1:23",
            "      scalar 1 1:8-1:9",
            "      mapping 1:11-1:22",
            "        key 'b' 1:12-1:15",
            "          scalar None 1:17-1:21",
            "  key 'c' 2:2-2:5",
            "    scalar 'd' 2:7-2:10",
        ],
        [],
    ),
    (
        "unicode",
        False,
        "é: 'ü'\nk: \"🎉x\"\n",
        [
            "mapping 0:0-2:0",
            "  key 'é' 0:0-0:1",
            "    scalar 'ü' 0:3-0:6",
            "  key 'k' 1:0-1:1",
            "    scalar '🎉x' 1:3-1:7",
        ],
        [],
    ),
    (
        "duplicate",
        False,
        "a: 1\nb: 2\na: 3\n",
        [
            "mapping 0:0-3:0",
            "  key 'a' 0:0-0:1",
            "    scalar 1 0:3-0:4",
            "  key 'b' 1:0-1:1",
            "    scalar 2 1:3-1:4",
            "  key 'a' 2:0-2:1",
            "    scalar 3 2:3-2:4",
        ],
        [
            "2:0-2:1 warning duplicate-key: duplicate key 'a': the later value wins",
        ],
    ),
    (
        "syntax",
        False,
        "a: [1, 2\nb: 3\n",
        [],
        [
            "0:3-0:4 error syntax: the `[` list opened here is never closed "
            "(did not find expected ',' or ']' at 2:2)",
        ],
    ),
    (
        "tab",
        False,
        "a:\n\tb: 1\n",
        [],
        [
            "1:0-1:0 error syntax: found character that cannot start any token (while scanning for the next token)",
        ],
    ),
    (
        "second document",
        False,
        "a: 1\n---\nb: 2\n",
        [
            "mapping 0:0-1:0",
            "  key 'a' 0:0-0:1",
            "    scalar 1 0:3-0:4",
        ],
        [
            "1:0-1:3 warning syntax: only the first YAML document is read",
        ],
    ),
    (
        "complex key",
        False,
        "? [1, 2]\n: x\n",
        [
            "mapping 0:0-2:0",
        ],
        [
            "0:2-0:8 error syntax: a mapping key must be a plain value, not a sequence",
        ],
    ),
    (
        "windows newlines",
        False,
        "a: 1\r\nb: [2]\r\n",
        [
            "mapping 0:0-2:0",
            "  key 'a' 0:0-0:1",
            "    scalar 1 0:3-0:4",
            "  key 'b' 1:0-1:1",
            "    sequence 1:3-1:6",
            "      scalar 2 1:4-1:5",
        ],
        [],
    ),
]


@pytest.mark.parametrize(
    ("name", "json", "text", "tree", "problems"), TREES, ids=[t[0] for t in TREES]
)
def test_tree_and_problems(
    name: str, json: bool, text: str, tree: list[str], problems: list[str]
) -> None:
    source = parse_source(text, json=json)
    assert (dump(source.root, []) if source.root is not None else []) == tree
    assert [
        f"{p.range.start.line}:{p.range.start.character}-{p.range.end.line}:{p.range.end.character}"
        f" {p.severity.value} {p.code}: {p.message}"
        for p in source.problems
    ] == problems


def test_a_long_anchored_string_counts_as_many_nodes_when_aliased() -> None:
    short = "a: &s " + "x" * 99 + "\nb: [*s, *s, *s]\n"
    long = "a: &s " + "x" * 1000 + "\nb: [*s, *s, *s]\n"
    assert parse_source(short, max_nodes=10).root is not None
    assert [p.code for p in parse_source(long, max_nodes=10).problems] == ["alias-bomb"]
