"""One line index for the product: readers, problems, symbols and LSP conversions agree
with editors (a line ends at \\n, \\r\\n or \\r; U+0085, U+2028, U+2029 are characters)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkspec.engine.spec.document import Document, analyze
from checkspec.engine.spec.lines import LineIndex, split_lines
from checkspec.engine.spec.problems import Position, Range
from checkspec.engine.spec.source import parse_source
from checkspec.server.analysis.symbols import document_symbols
from tests.support.analysis import ranges_of
from tests.support.spec_texts import LINE_ENDS, random_spec


def test_line_index_counts_lines_like_an_editor() -> None:
    text = "a\r\nb\rc\nd\u2028e\x85f\u2029g\x0ch"
    index = LineIndex(text)
    assert split_lines(text) == ["a", "b", "c", "d\u2028e\x85f\u2029g\x0ch"]
    assert len(index) == 4
    assert index.position(text.index("b")) == Position(1, 0)
    assert index.position(text.index("h")) == Position(3, 8)
    assert index.position(1) == Position(0, 1) == index.position(2)  # inside \r\n: line end
    assert index.offset(Position(2, 0)) == text.index("c")
    assert index.end == Position(3, 9)
    assert index.clamp(Position(9, 9)) == index.end
    assert index.clamp(Position(0, 5)) == Position(0, 1)
    assert index.slice(Range(Position(3, 2), Position(3, 5))) == "e\x85f"
    assert LineIndex("").end == Position(0, 0) and LineIndex("x\n").end == Position(1, 0)


def unknown_kind(document: Document) -> Range:
    (problem,) = [p for p in document.all_problems if p.code == "unknown-kind"]
    return problem.range


def test_unicode_line_separators_are_ordinary_characters_in_yaml() -> None:
    text = (
        "# note\u2028more\x85still a comment\u2029\n"
        'name: "a\u2028b"\n'
        "steps:\n"
        "  - interacts:\n"
        "      - inputs: plain\u2028text\x85here\n"
        "    checks:\n"
        "      - kind: strng_matching\n"
    )
    document = analyze(text, "t.scenario.yaml")
    assert [p.code for p in document.all_problems] == ["unknown-kind"]  # no syntax error
    assert unknown_kind(document) == Range(Position(6, 14), Position(6, 28))
    root = document.source.root
    assert root is not None
    assert root.value["name"] == "a\u2028b"
    steps = root.value["steps"]
    assert steps[0]["interacts"][0]["inputs"] == "plain\u2028text\x85here"


def test_unicode_line_separators_keep_json_positions() -> None:
    text = '{"name": "a\u2028b",\n "steps": [{"checks": [{"kind": "strng_matching"}]}]}'
    document = analyze(text, "t.scenario.json")
    assert unknown_kind(document).start == Position(1, 32)
    assert document.source.root is not None
    assert document.source.root.value["name"] == "a\u2028b"


def test_a_json_syntax_error_in_a_cr_only_file_is_on_its_line() -> None:
    text = '{\r"name": "x",\r"steps": [\r}'
    (problem,) = parse_source(text, json=True).problems
    assert problem.code == "syntax"
    assert problem.range.start == Position(3, 0)


def test_a_bom_counts_as_a_character_of_the_first_line() -> None:
    text = "\ufeffkind_of: 1\nname: x\nsteps:\n  - checks:\n      - kind: strng_matching\n"
    document = analyze(text, "t.scenario.yaml")
    unknown_field = next(p for p in document.all_problems if p.code == "unknown-field")
    assert unknown_field.range == Range(Position(0, 1), Position(0, 8))
    assert unknown_kind(document) == Range(Position(4, 14), Position(4, 28))


def test_ranges_of_a_file_without_final_newline_end_inside_it() -> None:
    text = "name: x\nsteps:\n  - checks:\n      - kind: string_matching\n        keyword: k"
    document = analyze(text, "t.scenario.yaml")
    end = LineIndex(text).end
    assert end == Position(4, 18)
    (scenario,) = document_symbols(document)
    assert scenario.range.end == end
    (step,) = scenario.children
    assert step.range.end == end and step.children[0].range.end == end


def test_a_syntax_error_at_the_end_of_a_file_without_final_newline_is_inside_it() -> None:
    text = 'name: x\nsteps: [1, "open'
    (problem,) = analyze(text, "t.scenario.yaml").all_problems
    assert LineIndex(text).contains(problem.range)


# -- properties ---------------------------------------------------------------------------


def assert_inside(text: str, document: Document) -> None:
    index = LineIndex(text)
    for rng in ranges_of(document):
        assert index.contains(rng), (rng, index.end)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_ranges_point_at_the_text_they_are_about(r: random.Random) -> None:
    spec = random_spec(r)
    document = analyze(spec.text, "t.scenario.yaml")
    assert_inside(spec.text, document)
    index = LineIndex(spec.text)
    if any(p.code == "syntax" for p in document.all_problems):
        return  # a code point libyaml refuses: only "inside the document" is promised
    for code, expected in spec.expected:
        if code == "symbol":
            (scenario,) = document_symbols(document)
            assert index.slice(scenario.selection) == expected
    wanted = sorted(expected for code, expected in spec.expected if code == "unknown-kind")
    found = [p for p in document.all_problems if p.code == "unknown-kind"]
    assert sorted(index.slice(p.range) for p in found) == wanted
    assert all(index.slice(e.range) == index.slice(p.range) for p in found for e in p.fix)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(max_size=30), max_size=8),
    st.lists(st.sampled_from(LINE_ENDS), min_size=8, max_size=8),
    st.booleans(),
    st.sampled_from(["t.scenario.yaml", "t.suite.yaml", "t.dataset.yaml", "t.scenario.json"]),
)
def test_any_text_gives_ranges_inside_it(
    pieces: list[str], ends: list[str], final: bool, name: str
) -> None:
    text = "".join(piece + end for piece, end in zip(pieces, ends, strict=False))
    if not final:
        text = text.rstrip("\r\n")
    assert_inside(text, analyze(text, name))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(alphabet="ab \t:-", max_size=12), min_size=1, max_size=700),
    st.lists(st.sampled_from(LINE_ENDS), min_size=700, max_size=700),
    st.randoms(use_true_random=False),
)
def test_cut_is_slice_for_positions_inside_the_text(
    pieces: list[str], ends: list[str], r: random.Random
) -> None:
    # Several chunks of line starts (a chunk holds 256 lines), read in any order.
    text = "".join(piece + end for piece, end in zip(pieces, ends, strict=False))
    index = LineIndex(text)
    lines = split_lines(text)
    for _ in range(20):
        sl = r.randrange(len(lines))
        el = r.randrange(sl, len(lines))
        sc = r.randrange(len(lines[sl]) + 1)
        ec = r.randrange(len(lines[el]) + 1) if el > sl else r.randrange(sc, len(lines[sl]) + 1)
        assert index.cut(sl, sc, el, ec) == index.slice(Range.of(sl, sc, el, ec))
    # Past the last line it is `slice`'s answer too.
    assert index.cut(0, 0, len(lines) + 3, 0) == index.slice(Range.of(0, 0, len(lines) + 3, 0))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(alphabet="ab é", max_size=90),
            st.sampled_from(["\n", "\n", "\n", "\r\n", "\r"]) | st.just("\n"),
        ),
        max_size=900,
    ),
    st.sampled_from([1, 7, 64, 16_384]),
)
def test_line_starts_are_found_in_windows_of_line_feeds_or_by_the_pattern(
    lines: list[tuple[str, str]], window: int
) -> None:
    # Chunks of line feeds only are split from a window of the text (doubled until it
    # holds a chunk's lines); a chunk with a CR among them is matched break by break.
    import re

    from checkspec.engine.spec import lines as module

    text = "".join(piece + end for piece, end in lines)
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    old = vars(module)["_WINDOW"]
    vars(module)["_WINDOW"] = window  # (small windows: many doublings and chunk edges)
    try:
        index = LineIndex(text)
        assert [index.offset(Position(n, 0)) for n in range(len(starts))] == starts
        assert index.position(len(text)) == Position(len(starts) - 1, len(text) - starts[-1])
    finally:
        vars(module)["_WINDOW"] = old
