"""convert.py: code-point columns <-> the client's position encoding, and LSP shapes."""

from __future__ import annotations

import random

from lsprotocol import types

from checkspec.engine.spec.lines import LineIndex
from checkspec.engine.spec.problems import Position, Problem, Range, Severity, TextEdit
from checkspec.server.analysis.actions import QuickFix
from checkspec.server.lsp.convert import (
    PositionCodec,
    negotiate_encoding,
    to_code_action,
    to_diagnostic,
)


def test_codec_counts_utf16_units_after_a_character_outside_the_bmp() -> None:
    text = "a: 🎉x\r\nb: é\rc: 😀😀z"
    codec = PositionCodec(text, types.PositionEncodingKind.Utf16)
    assert codec.to_lsp(Position(0, 4)) == types.Position(line=0, character=5)
    assert codec.from_lsp(types.Position(line=0, character=5)) == Position(0, 4)
    assert codec.to_lsp(Position(1, 4)) == types.Position(line=1, character=4)  # é: 1 unit
    assert codec.to_lsp(Position(2, 5)) == types.Position(line=2, character=7)  # \r ends a line
    rng = Range(Position(2, 3), Position(2, 6))
    assert codec.from_range(codec.range(rng)) == rng


def _units(line: str, points: int) -> int:
    """The definition: UTF-16 units of the first `points` code points of `line`."""
    return len(line[:points].encode("utf-16-le")) // 2


def test_codec_agrees_with_utf16_itself_on_random_texts() -> None:
    """The codec finds the characters past U+FFFF in the text's range, never slicing a
    line out (a 50 MB line was copied for each position); it must still count as UTF-16
    does, on every line ending and any column, in and past the line."""
    pieces = ["a", "é", "😀", "𝄞", "\n", "\r\n", "\r", " "]
    chooser = random.Random(48)
    for _ in range(400):
        text = "".join(chooser.choice(pieces) for _ in range(chooser.randint(0, 14)))
        codec = PositionCodec(text, types.PositionEncodingKind.Utf16)
        lines = LineIndex(text)
        for number in range(len(lines)):
            line = lines.line(number)
            for points in range(len(line) + 1):
                units = _units(line, points)
                assert codec.to_lsp(Position(number, points)) == types.Position(
                    line=number, character=units
                ), (text, number, points)
                back = codec.from_lsp(types.Position(line=number, character=units))
                assert back == Position(number, points), (text, number, units)
            inside = [
                p for p in range(len(line)) if ord(line[p]) > 0xFFFF
            ]  # a column between a pair's two units falls after its character
            for p in inside:
                middle = types.Position(line=number, character=_units(line, p) + 1)
                assert codec.from_lsp(middle) == Position(number, p + 1), (text, number, p)


def test_codec_passes_code_points_through_for_utf32() -> None:
    codec = PositionCodec("a: 🎉x", types.PositionEncodingKind.Utf32)
    assert codec.to_lsp(Position(0, 4)) == types.Position(line=0, character=4)
    assert codec.from_lsp(types.Position(line=0, character=4)) == Position(0, 4)


def test_codec_clamps_positions_past_the_text_into_it() -> None:
    codec = PositionCodec("🎉\nab", types.PositionEncodingKind.Utf16)
    assert codec.to_lsp(Position(5, 3)) == types.Position(line=1, character=2)  # the end
    assert codec.to_lsp(Position(0, 7)) == types.Position(line=0, character=2)  # line's end
    assert codec.from_lsp(types.Position(line=0, character=9)) == Position(0, 8)


def test_utf32_is_negotiated_only_when_offered() -> None:
    assert negotiate_encoding(["utf-8", "utf-16", "utf-32"]) == types.PositionEncodingKind.Utf32
    assert negotiate_encoding(["utf-8"]) == types.PositionEncodingKind.Utf16
    assert negotiate_encoding(None) == types.PositionEncodingKind.Utf16


def test_problems_become_diagnostics_and_fixes_workspace_edits() -> None:
    text = "kind: 🎉 key: x"
    codec = PositionCodec(text, types.PositionEncodingKind.Utf16)
    rng = Range(Position(0, 8), Position(0, 11))
    problem = Problem(
        "deprecated-alias",
        "'key' is a deprecated name for 'target_key'",
        rng,
        Severity.WARNING,
        fix=(TextEdit(rng, "target_key"),),
        fix_title="Rename to 'target_key'",
    )
    diagnostic = to_diagnostic(problem, codec)
    assert diagnostic.range.start.character == 9
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert diagnostic.tags == [types.DiagnosticTag.Deprecated]
    action = to_code_action(
        QuickFix(problem.fix_title or "", problem, problem.fix), "file:///x", codec
    )
    assert action.edit is not None and action.edit.changes is not None
    (edit,) = action.edit.changes["file:///x"]
    assert (edit.range.start.character, edit.range.end.character, edit.new_text) == (
        9,
        12,
        "target_key",
    )
