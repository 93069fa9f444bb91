"""The line reader (engine/spec/block_reader.py) reads exactly what the libyaml reader reads.

Every text is read both ways: by `parse_source` (the line reader first, libyaml when it
declines) and by the libyaml reader alone. Whatever the line reader accepts must give the
same tree (kinds, values and their types, ranges, which nodes move together, what each
top-level entry holds), the same problems and the same hints, node for node.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkspec.engine.spec import source
from checkspec.engine.spec.tree import Node, Shift, Source
from tests.support.paths import REPO

ROOT = REPO


def _libyaml(text: str, **limits: Any) -> Source:
    return source.parse_source(text, line_reader=False, **limits)


def _lines(text: str, **limits: Any) -> Source | None:
    """What the line reader makes of `text`, None when it leaves it to libyaml."""
    parsed = source.parse_source(text, **limits)
    return parsed if parsed.by_lines else None


def _same_value(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same_value, a, b))
    return bool(a == b)


def _describe(parsed: Source) -> list[Any]:
    """Everything a reading gives, as plain data; Shifts numbered by first appearance."""
    cells: dict[int, int] = {}
    out: list[Any] = []

    def cell_id(cell: Shift) -> Any:
        if cell is source.FIXED:
            return "fixed"
        number = cells.setdefault(id(cell), len(cells))
        return (number, cell.nodes, cell.problems, cell.aliased)

    def walk(node: Node, depth: int) -> Iterator[Any]:
        # Which nodes move together (their Shift) is the readers' own layout: compared too.
        yield (depth, node.kind, node.range, cell_id(node._cell), node._merged)  # noqa: SLF001
        if node.kind == "mapping":
            for key, value in node.entries:
                yield from walk(key, depth + 1)
                yield from walk(value, depth + 1)
        else:
            for item in node.items:
                yield from walk(item, depth + 1)

    root = parsed.root
    if root is not None:
        out.extend(walk(root, 0))
    out.append(("problems", parsed.problems))
    out.append(("nodes", parsed.nodes))
    out.append(("cut", [(k.range, v.range) for k, v in parsed.cut_values]))
    out.append(("aliased", parsed.aliased))
    return out


def _agree(text: str, **limits: Any) -> bool:
    """Whether the line reader took `text`; it fails the test when it read it differently."""
    fast = _lines(text, **limits)
    if fast is None:
        return False
    slow = _libyaml(text, **limits)
    assert _describe(fast) == _describe(slow), text
    if slow.root is None:
        assert fast.root is None
    else:
        assert fast.root is not None
        assert _same_value(fast.root.value, slow.root.value), text
    return True


# -- real files --------------------------------------------------------------------------


def _yaml_files() -> list[Path]:
    found = []
    for folder in ("examples", "tests", "bench/out"):
        found += [p for p in (ROOT / folder).rglob("*") if p.suffix in (".yaml", ".yml")]
    return sorted(found)


def test_every_yaml_file_of_the_project_reads_the_same() -> None:
    taken = 0
    for path in _yaml_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if len(text) > 3_000_000:
            continue
        taken += _agree(text)
    assert taken >= 4  # the benchmark's suites among them


def test_the_schema_agreement_corpus_reads_the_same() -> None:
    from tests.support.spec_corpus import CORPUS

    taken = sum(_agree(case.text) for case in CORPUS if not case.name.endswith(".json"))
    assert taken > 650  # of 681: most are plain block YAML


def test_the_benchmark_suite_is_read_by_the_line_reader() -> None:
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    import workload

    text = yaml.safe_dump(
        {"name": "bench", "scenarios": [workload.make_scenario(i) for i in range(300)]},
        sort_keys=False,
        allow_unicode=True,
    )
    assert _agree(text)  # wrapped single-quoted payloads included


# -- what it reads, case by case ---------------------------------------------------------

TAKEN = [
    "a: 1\n",
    "a: 1",
    "a: 1\n\n\n",
    "a: 1\n   ",
    "# only\na: b # c\n",
    "a: b  # two blanks: not a cut value\n",
    "a:\n  b: 1\n  c: 2\nd: 3\n",
    "a:\n- 1\n- 2\nb:\n  - x\n  -\n  - y\n",
    "- a\n- b: 1\n  c: 2\n-\n",
    "-\n  a: 1\n-\n  - 2\n",
    "a:\nb:\n",
    "a:   # nothing\nb: ~\n",
    "k: 'it''s'\nq: \"dq\"\n'x y': 1\n\"z\": 2\n",
    "k: 'one\n  two\n\n  three   '\nn: 1\n",
    'k: "one\n\n\n two "\nn: 1\n',
    "k: '\n  x'\n",
    "k: plain\n  goes on\n\n  and on # here\nm: 1\n",
    "- plain\n  goes on\n- next\n",
    "k:\n  lone\n  scalar\nm: 1\n",
    "a: 1\na: 2\n",
    "n: 0o17\nx: 0x1F\ny: 1_000\nz: .inf\nw: .nan\nb: yes\nt: 2024-01-01\ne:\n",
    "a: -1\nb: -x\nc: ?x\nd: :x\ne: a:b\nf: http://x#y\n",
    "top:\n  - kind: a\n    checks:\n    - kind: b\n      x: 1\n  - kind: c\n",
    "ü: ﬁ\n😀: 'é😀'\n",
    "  a: 1\n  b: 2\n",
    "a: 1\n# trailing comment",
    "a: 12:30\nb: 1:2:3\n",
    'e: "\\0\\a\\b\\t\\n\\v\\f\\r\\e\\ \\"\\/\\\\\\N\\_\\L\\P\\x41\\u00e9\\U0001F600"\n',
    '"k\\u00e9y": "caf\\xE9"\n',
]


BLOCK_SCALARS = [
    "a: |\n  one\n  two\nb: 1\n",
    "a: >\n  one\n  two\n\n  three\n   more\n  back\nb: 1\n",
    "a: |-\n  x\n\n\nb: 1\n",
    "a: |+\n  x\n\n\nb: 1\n",
    "a: >+\n  x\n  \n     \nb: 1\n",
    "a: >-\n  x\n  y",
    "a: |\n  x",
    "a: |\n\n  \n  x\n",
    "a: | # note\n  # not a comment\n    indented\n",
    "a: |#c\n  x\n",
    "- |\n  item\n- >\n  folded\n  item\n-\n  |\n    alone\n",
    "k:\n  - x: |\n      deep\n    y: 2\n",
    "a: |\nb: 1\n",
    "a: |\n",
    "a: |\n   \n",
    "a: |\n  x\n   \n  ",
]


FLOW = [
    "tags: [a, b]\n",
    "- {a: 1, b: [x, 'y z', \"q\"]}\n- []\n- [[]]\n- {}\n",
    "k: [a, b]  # c\nm: 1\n",
    "k: {a: 1, a: 2}\n",
    "k: [0b_]\nm: 0b_\n",
    "k: [!!str 1, !!python/object x]\n",
    "k:\n  [a]\nm:\n- {x: y}\n",
    "scenarios:\n- name: s\n  tags: [a]\n  steps:\n  - interacts: [{inputs: hi}]\n",
]


@pytest.mark.parametrize("text", TAKEN + BLOCK_SCALARS + FLOW)
def test_reads_the_same_and_takes(text: str) -> None:
    assert _agree(text), "the line reader declined"


def test_a_flow_collection_value_read_wrong_is_reported_once() -> None:
    text = "k: [0b_]\nm: 0b_\n"
    assert [p.range.start.line for p in source.parse_source(text).problems] == [0]


@st.composite
def _block_texts(draw: st.DrawFn) -> str:
    header = draw(st.sampled_from(["|", ">", "|-", "|+", ">-", ">+", "| # c", ">#c"]))
    lines = draw(
        st.lists(
            st.tuples(st.integers(0, 6), st.sampled_from(["", "x", "a b", "#", " y", "é"])),
            max_size=6,
        )
    )
    body = "".join(" " * spaces + word + "\n" for spaces, word in lines)
    where = draw(st.sampled_from(["k: {}\n", "- {}\n", "k:\n- {}\n", "k:\n  m: {}\n"]))
    after = draw(st.sampled_from(["", "z: 1\n", "  z: 1\n", "- z\n", "# end\n"]))
    tail = draw(st.sampled_from(["", "\n", "  ", "x"]))
    return where.format(header) + body + after + tail


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_block_texts())
def test_generated_block_scalars_read_the_same(text: str) -> None:
    _agree(text)


LEFT_TO_LIBYAML = [
    "a: |2\n  text\n",
    "a: >-1\n  text\n",
    "a: | text\n",
    "a: |\n\n     \n  x\n",  # a blank line wider than the text: libyaml's error
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "<<: {a: 1}\n",
    "---\na: 1\n",
    "a: 1\n---\nb: 2\n",
    "%YAML 1.1\n---\na: 1\n",
    "a:\tb\n",
    "a: 1\r\nb: 2\r\n",
    "\ufeffa: 1\n",
    'a: "bad \\q escape"\n',
    'a: "\\ud800"\n',
    'a: "two\\\n  lines"\n',
    "? a\n: b\n",
    "- - a\n",
    "a: b: c\n",
    "k: [a,\n  b]\n",
    "k: 'a\n\tb'\n",  # a tab on a line read as part of a scalar
    "k: |\n  a\n  \tb\n",
    "k: a\n  b\x07\n",
    "k: |\n  a\n---\n",
    "k: [a] x\n",
    "k: {a: 1}:\n",  # a flow collection as a key on a value's line: libyaml's error
    "k: [a]: b\n",
    "- {a: 1}: {b: 2}\n",
    "k:\n  [a]: b\n",
    "k: [&a 1, *a]\n",
    "k: {a: [1, 2}\n",
    "[a]: 1\n",
    "a: 1\n  b: 2\n",
    "plain\n",
    "a: 'never closed\n",
    "a: 1\nb\n",
    "a:\n  - x\n  y: 1\n",
    "a: 1\x07\n",
    "a: 1\u2028b: 2\n",
    "- a\nb: 1\n",
    "x" * 1100 + ": 1\n",
]


@pytest.mark.parametrize("text", LEFT_TO_LIBYAML)
def test_leaves_the_rest_to_libyaml(text: str) -> None:
    assert _lines(text) is None
    assert _describe(source.parse_source(text)) == _describe(_libyaml(text))


def test_limits_are_kept_as_libyaml_keeps_them() -> None:
    deep = "".join(" " * i + f"k{i}:\n" for i in range(12)) + " " * 12 + "v: 1\n"
    assert _lines(deep, max_depth=5) is None  # libyaml reads it, and says where
    assert [p.code for p in source.parse_source(deep, max_depth=5).problems] == ["too-deep"]
    many = "".join(f"k{i}: {i}\n" for i in range(100))
    assert _agree(many, max_nodes=1000)
    # Over the node limit, the line reader stops where libyaml's read would, and says so.
    # (Texts of 60-70 nodes: with twice the limit, libyaml's count refuses them at 0:0.)
    texts = (
        "".join(f"k{i}: {i}\n" for i in range(35)),
        "k:\n" + "- [1, 2]\n" * 20,
        "- a\n" * 60,
        "-\n" * 60,
        "- x: y\n" * 20,
    )
    for text in texts:
        for limit in (49, 50, 51):
            assert _agree(text, max_nodes=limit)
            problems = source.parse_source(text, max_nodes=limit).problems
            assert [p.code for p in problems] == ["too-many-nodes"]
            assert f"more than {limit:,} YAML nodes" in problems[0].message


def test_a_declined_text_is_read_afresh_by_libyaml() -> None:
    # The line reader read `0b_` (an int it cannot make) before it declined the flow list:
    # libyaml still reports it, once.
    text = "n: 0b_\nb: [x]\n"
    problems = source.parse_source(text).problems
    assert [(p.code, p.range.start.line) for p in problems] == [("syntax", 0)]
    assert "cannot read '0b_' as !!int" in problems[0].message
    taken = "n: 0b_\nb: 0b_\n"
    assert _agree(taken)
    assert len(source.parse_source(taken).problems) == 1  # at its first place, as libyaml's


# -- generated texts ---------------------------------------------------------------------

_SCALARS = st.one_of(
    st.text(alphabet=st.sampled_from("ab :#-'\"?xé😀\\0.1_\n "), max_size=12),
    st.sampled_from(["", "~", "null", "yes", "No", "1", "-2", "0x1f", "1e3", ".nan", "12:30"]),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
)
_KEYS = st.one_of(st.text(alphabet="abc xy_-é", min_size=1, max_size=8), st.integers(0, 9))
# Spec-like data: lists of scalars or mappings (a list right in a list is rare in specs,
# and its `- - a` lines are left to libyaml).
_DATA = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(
            st.one_of(_SCALARS, st.dictionaries(_KEYS, inner, min_size=1, max_size=3)),
            min_size=1,  # (empty ones are flow: `[]`, `{}`)
            max_size=4,
        ),
        st.dictionaries(_KEYS, inner, min_size=1, max_size=4),
    ),
    max_leaves=25,
)


@st.composite
def _texts(draw: st.DrawFn) -> str:
    data = draw(st.dictionaries(_KEYS, _DATA, min_size=1, max_size=4))
    text = yaml.safe_dump(
        data,
        default_flow_style=draw(st.sampled_from([False, False, None])),
        allow_unicode=draw(st.booleans()),
        width=draw(st.sampled_from([20, 40, 80, 1000])),
        indent=draw(st.sampled_from([2, 3, 4])),
    )
    lines = text.split("\n")
    # What people do to such files: comments, blank lines, moved lines, duplicates.
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(lines)))
        edit = draw(
            st.sampled_from(["comment", "blank", "indent", "dedent", "copy", "cut", "colon"])
        )
        if at == len(lines) or edit == "comment":
            lines.insert(at, " " * draw(st.integers(0, 6)) + "# note")
        elif edit == "blank":
            lines.insert(at, " " * draw(st.integers(0, 3)))
        elif edit == "indent":
            lines[at] = " " + lines[at]
        elif edit == "dedent":
            lines[at] = lines[at][1:]
        elif edit == "copy":
            lines.insert(at, lines[at])
        elif edit == "colon":  # a value's line made a key's (`k: [a]:`)
            lines[at] += ":"
        elif lines[at]:
            lines[at] = lines[at][: draw(st.integers(0, len(lines[at])))]
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n", "  "]))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts())
def test_generated_texts_read_the_same(text: str) -> None:
    _agree(text)


def test_generated_texts_are_mostly_taken() -> None:
    # The comparison above means little if the line reader declines everything.
    rng = random.Random(7)
    taken = 0
    for _ in range(200):
        data = {
            f"k{i}": rng.choice([1, "two words", [1, {"a": "b"}], {"x": None}, "it's"])
            for i in range(rng.randint(1, 6))
        }
        taken += _agree(yaml.safe_dump(data, default_flow_style=False))
    assert taken == 200


def test_the_line_reader_reads_whole_files_only() -> None:
    # Edits re-read their entries with libyaml (engine/spec/incremental.py); JSON is JSON.
    text = "- a: 1\n- b: 2\n"
    fragment = source.parse_fragment(text, line_offset=4, max_depth=200, max_nodes=1000)
    assert fragment.root is not None
    assert fragment.root.items[0].range.start.line == 4
    assert not source.parse_source('{"a": 1}', json=True).by_lines
    assert source.parse_source(text).by_lines


# -- hostile texts -----------------------------------------------------------------------

HOSTILE = {
    "one long line": "k: " + "word " * 200_000 + "\n",
    "one long quoted line": "k: '" + "it''s " * 100_000 + "'\n",
    "a long key": "k" * 1_020 + ": 1\n",
    "deep indentation": "".join(" " * i + f"k{i}:\n" for i in range(300)) + " " * 300 + "v\n",
    "far to the right": " " * 100_000 + "k: v\n",
    "many headers": "k:\n" + "- |\n" * 20_000,
    "many flows": "k:\n" + "- [a, {b: [c]}]\n" * 20_000,
    "a flow over the node limit": "k: [" + "a, " * 800_000 + "]\n",
    "a flow twice over the limit": "k: [" + "a," * 1_600_000 + "]\n",  # refused at once
    "a quote never closed": "k: '" + "x\n" * 50_000,
    "blank lines in a plain scalar": "k: a\n" + "\n" * 50_000 + "  b\n",
    "odd unicode": "k: \u00a0\u200b\ufffd\U0001f600\u2027\n\u00e9: '\u202a'\n",
}


@pytest.mark.parametrize("name", HOSTILE)
@pytest.mark.unmeasured  # volume: a smaller test measures the same lines
def test_hostile_texts_read_as_libyaml_reads_them(name: str) -> None:
    text = HOSTILE[name]
    assert _describe(source.parse_source(text)) == _describe(_libyaml(text))


def test_the_characters_left_to_libyaml_are_those_it_does_not_print_as_is() -> None:
    """FOREIGN lists the few characters the line reader leaves to libyaml (start-up: a
    negated class over all of Unicode took 20 ms to compile); it must exclude exactly
    what the class of the characters libyaml prints as is does not hold."""
    import re

    from checkspec.engine.spec.block_reader import foreign

    taken = re.compile(
        "[\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
    )
    text = "".join(map(chr, range(0x110000)))
    left = {m.start() for m in foreign().finditer(text)}
    kept = {m.start() for m in taken.finditer(text)}
    assert left.isdisjoint(kept) and len(left) + len(kept) == 0x110000


def test_an_ascii_line_is_searched_for_the_same_characters_as_any_other() -> None:
    """An ASCII line is searched with the ASCII part of FOREIGN (the full class compiles
    to a table of all of Unicode: a start-up cost); the two agree on every ASCII
    character, and a line with any of the others is still left to libyaml."""
    import re

    from checkspec.engine.spec.block_reader import FOREIGN_ASCII, Unsupported, _shape, foreign

    ascii_class = re.compile(FOREIGN_ASCII)
    for code in range(128):
        char = chr(code)
        assert bool(ascii_class.search(char)) == bool(foreign().search(char)), hex(code)
    for char in ("\x85", "\x9f", "\u2028", "\u2029", "\ud800", "\ufeff", "\ufffe", "\uffff"):
        with pytest.raises(Unsupported):
            _shape(f"key: caf\u00e9 {char}")  # not ASCII: the full class
    with pytest.raises(Unsupported):
        _shape("key: a\tb")  # ASCII: the ASCII class
    assert _shape("key: caf\u00e9") is not None
