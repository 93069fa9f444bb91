"""The full-sync diff (engine/spec/text_diff.py): its edit applied to the old text gives the
new text, for any Unicode (surrogate-pair characters, CRLF, lone CRs), and its ends, as the
server sends them in UTF-16 positions, are where LSP puts them (checked against an
independent UTF-16 implementation of LSP positions)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from checkspec.engine.spec.document import Document, analyze
from checkspec.engine.spec.incremental import Editing
from checkspec.engine.spec.lines import LineIndex
from checkspec.engine.spec.problems import Range
from checkspec.engine.spec.text_diff import Replacement, common_prefix, common_suffix, diff
from checkspec.server.lsp.convert import PositionCodec
from tests.support.spec_texts import WORKSPACE, suite
from tests.support.unmeasured import measured_first

# Characters that matter: ASCII, line breaks, BMP non-ASCII, astral (surrogate pairs in UTF-16);
# then any character but a lone surrogate (no UTF-8 text, so no LSP message, holds one).
_CHARS = st.sampled_from(["a", "b", " ", "-", ":", "\n", "\r", "\r\n", "é", "中", "😀", "𝄞"])
_TEXT = st.lists(st.one_of(_CHARS, st.characters(exclude_categories=("Cs",))), max_size=60).map(
    "".join
)


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[str, str]:
    """An old text and a new one: either unrelated, or the old with a few edits."""
    old = draw(_TEXT)
    if draw(st.booleans()):
        return old, draw(_TEXT)
    new = old
    for _ in range(draw(st.integers(1, 3))):
        a = draw(st.integers(0, len(new)))
        b = draw(st.integers(a, len(new)))
        new = new[:a] + draw(_TEXT) + new[b:]
    return old, new


def _utf16_lines(text: str) -> list[tuple[int, str]]:
    """(start offset, line text without its break) per LSP line: \\r\\n, \\r and \\n end lines."""
    lines, start, i = [], 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "\r\n":
            lines.append((start, text[start:i]))
            i += 2 if text.startswith("\r\n", i) else 1
            start = i
        else:
            i += 1
    lines.append((start, text[start:]))
    return lines


def _offset_of_utf16(text: str, line: int, character: int) -> int:
    """The code-point offset of an LSP position (UTF-16 code units), computed independently."""
    start, content = _utf16_lines(text)[line]
    units = content.encode("utf-16-le")
    assert character * 2 <= len(units), "past the line's end"
    before = units[: character * 2].decode("utf-16-le")  # fails if it splits a pair
    return start + len(before)


def _as_lsp(old: str, edit: Replacement) -> tuple[int, int, int, int]:
    lines = LineIndex(old)
    codec = PositionCodec(old, "utf-16", lines)
    rng = codec.range(Range(lines.position(edit.start), lines.position(edit.end)))
    return rng.start.line, rng.start.character, rng.end.line, rng.end.character


@settings(max_examples=600, deadline=None)
@given(_pairs())
@measured_first(150)  # of 600: the diff's few lines, again and again
def test_the_edit_turns_old_into_new_and_its_utf16_range_is_right(pair: tuple[str, str]) -> None:
    old, new = pair
    edit = diff(old, new)
    if old == new:
        assert edit is None
        return
    assert edit is not None
    assert edit.apply(old) == new
    assert 0 <= edit.start <= edit.end <= len(old)
    # Never inside a \r\n: LSP has no position there.
    for at in (edit.start, edit.end):
        assert not (0 < at < len(old) and old[at - 1] == "\r" and old[at] == "\n")
    # The range as the server would send it, read back by an independent UTF-16 reading of
    # LSP positions, applied to the old text, gives the new text.
    sl, sc, el, ec = _as_lsp(old, edit)
    start, end = _offset_of_utf16(old, sl, sc), _offset_of_utf16(old, el, ec)
    assert (start, end) == (edit.start, edit.end)
    assert old[:start] + edit.text + old[end:] == new


@settings(max_examples=300, deadline=None)
@given(_pairs())
def test_prefix_and_suffix_are_the_longest_and_do_not_overlap(pair: tuple[str, str]) -> None:
    old, new = pair
    p = common_prefix(old, new)
    assert old[:p] == new[:p]
    assert p == min(len(old), len(new)) or old[p] != new[p]
    limit = min(len(old), len(new)) - p
    s = common_suffix(old, new, limit)
    assert s <= limit
    assert old[len(old) - s :] == new[len(new) - s :]
    assert s == limit or old[len(old) - s - 1] != new[len(new) - s - 1]


def test_blocks_of_a_long_text_are_compared_right() -> None:
    base = "x" * 10_000 + "😀\r\n" * 3000
    for at in (0, 1, 4095, 4096, 4097, 9_999, 12_345, len(base) - 1):
        new = base[:at] + "Y" + base[at + 1 :]
        edit = diff(base, new)
        assert edit is not None and edit.apply(base) == new
        assert edit.end - edit.start <= 3


def _all_problems(document: Document) -> list[str]:
    found = [*document.problems, *(p for e in document.scenarios for p in e.problems)]
    return sorted(repr((p.range, p.code, p.message)) for p in found)


def test_a_whole_text_change_goes_through_the_incremental_path() -> None:
    text = suite(50)
    editing = Editing(text, "big.suite.yaml", WORKSPACE)
    before = _all_problems(editing.analysis())
    new = text.replace("kind: string_matching", "kind: string_matchin", 1)
    editing.set_text(new)
    assert editing.window is not None  # a re-read of the touched part, not a fresh analysis
    found = editing.analysis()
    fresh = analyze(new, "big.suite.yaml", WORKSPACE, kind=editing.kind)
    after = _all_problems(found)
    assert after != before  # the unknown kind is reported
    assert after == _all_problems(fresh)
