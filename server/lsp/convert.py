"""The one place where analysis types become LSP types and back.

Analysis columns count Unicode code points. When the client accepts `utf-32` positions
they are sent as they are; otherwise they are converted to UTF-16 code units (LSP's
default) using the text of the line, so a character outside the BMP (an emoji) before a
problem does not shift it.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from lsprotocol import types

from checkspec.engine.spec.lines import LineIndex, index_of
from checkspec.engine.spec.problems import Position, Problem, Range, Severity, TextEdit

from .. import early_initialize

if TYPE_CHECKING:  # the analysis modules load with the first request that needs them
    from ..analysis.actions import QuickFix
    from ..analysis.completion import Completion
    from ..analysis.hover import HoverInfo
    from ..analysis.lenses import Lens
    from ..analysis.symbols import Symbol

UTF32 = types.PositionEncodingKind.Utf32
UTF16 = types.PositionEncodingKind.Utf16
SOURCE = "checkspec"
RUN_SOURCE = "checkspec run"


def negotiate_encoding(offered: list[str] | None) -> types.PositionEncodingKind:
    """utf-32 (our own columns) when the client takes it, else the mandatory utf-16."""
    return types.PositionEncodingKind(early_initialize.negotiate_encoding(offered))


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class PositionCodec:
    """Columns of one text, between code points (analysis) and the client's encoding.

    Positions sent to the client are first clamped into the document, so no answer can
    point past a line's end or the last line whatever produced it.
    """

    def __init__(self, text: str, encoding: str, lines: LineIndex | None = None) -> None:
        self._lines = lines if lines is not None and lines.text is text else index_of(text)
        self._text = text
        # UTF-16 columns differ from code points only past U+FFFF. str.isascii is O(1) (a
        # flag of the string): most texts never need a conversion. Lines are never sliced
        # out: a 50 MB line would be copied for each position converted.
        self._utf16 = encoding != UTF32 and not text.isascii()

    def to_lsp(self, pos: Position) -> types.Position:
        pos = self._lines.clamp(pos)
        character = pos.character
        if self._utf16 and character:
            start = self._lines.start(pos.line) or 0
            character += sum(1 for _ in _ASTRAL.finditer(self._text, start, start + character))
        return types.Position(line=pos.line, character=character)

    def from_lsp(self, pos: types.Position) -> Position:
        units = pos.character
        start = self._lines.start(pos.line) if self._utf16 else None
        if start is None:
            return Position(pos.line, units)
        end = self._lines.offset(Position(pos.line, 1 << 62))  # the line's end
        passed = 0  # characters past U+FFFF before the column: two units, one point
        floor = 0  # a column inside such a pair falls after its character
        for found in _ASTRAL.finditer(self._text, start, end):
            at = found.start() - start
            if at + passed >= units:
                break
            passed += 1
            floor = at + 1
        return Position(pos.line, max(units - passed, floor))

    def range(self, rng: Range) -> types.Range:
        return types.Range(start=self.to_lsp(rng.start), end=self.to_lsp(rng.end))

    def from_range(self, rng: types.Range) -> Range:
        return Range(self.from_lsp(rng.start), self.from_lsp(rng.end))


_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


def to_diagnostic(problem: Problem, codec: PositionCodec, source: str = SOURCE) -> types.Diagnostic:
    tags = (
        [types.DiagnosticTag.Deprecated]
        if problem.code == "deprecated-alias"
        else [types.DiagnosticTag.Unnecessary]  # a check runs skip: shown greyed
        if problem.code == "disabled-check"
        else None
    )
    return types.Diagnostic(
        range=codec.range(problem.range),
        message=problem.message,
        severity=_SEVERITY[problem.severity],
        code=problem.code,
        source=source,
        tags=tags,
    )


def text_edits(edits: tuple[TextEdit, ...], codec: PositionCodec) -> list[types.TextEdit]:
    return [types.TextEdit(range=codec.range(e.range), new_text=e.new_text) for e in edits]


def to_code_action(fix: QuickFix, uri: str, codec: PositionCodec) -> types.CodeAction:
    return types.CodeAction(
        title=fix.title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[to_diagnostic(fix.problem, codec)],
        edit=types.WorkspaceEdit(changes={uri: text_edits(fix.edits, codec)}),
        is_preferred=True,
    )


@cache
def _item_kinds() -> dict[object, types.CompletionItemKind]:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.completion import ItemKind

    return {
        ItemKind.CHECK: types.CompletionItemKind.Class,
        ItemKind.FIELD: types.CompletionItemKind.Property,
        ItemKind.VALUE: types.CompletionItemKind.EnumMember,
        ItemKind.PATH: types.CompletionItemKind.Field,
    }


def to_completion_item(item: Completion, codec: PositionCodec) -> types.CompletionItem:
    return types.CompletionItem(
        label=item.label,
        kind=_item_kinds()[item.kind],
        detail=item.detail or None,
        documentation=_markdown(item.documentation) if item.documentation else None,
        sort_text=item.sort or None,
        filter_text=item.label,
        text_edit=types.TextEdit(
            range=codec.range(item.replace), new_text=item.snippet or item.insert
        ),
        insert_text_format=(
            types.InsertTextFormat.Snippet if item.snippet else types.InsertTextFormat.PlainText
        ),
    )


def to_hover(info: HoverInfo, codec: PositionCodec) -> types.Hover:
    return types.Hover(contents=_markdown(info.markdown), range=codec.range(info.range))


@cache
def _symbol_kinds() -> dict[object, types.SymbolKind]:
    # Deferred: the analysis loads with the first document (start-up time).
    from ..analysis.symbols import SymbolRole

    return {
        SymbolRole.SCENARIO: types.SymbolKind.Class,
        SymbolRole.STEP: types.SymbolKind.Method,
        SymbolRole.CHECK: types.SymbolKind.Function,
        SymbolRole.CUSTOM_CHECK: types.SymbolKind.Function,
        SymbolRole.MORE: types.SymbolKind.Null,
    }


def to_document_symbol(symbol: Symbol, codec: PositionCodec) -> types.DocumentSymbol:
    return types.DocumentSymbol(
        name=symbol.name or "?",  # LSP forbids empty names
        kind=_symbol_kinds()[symbol.role],
        range=codec.range(symbol.range),
        selection_range=codec.range(symbol.selection),
        detail=symbol.detail or None,
        children=[to_document_symbol(child, codec) for child in symbol.children],
    )


def to_code_lens(lens: Lens, uri: str, codec: PositionCodec) -> types.CodeLens:
    arguments: list[object] = [uri] if lens.scenario is None else [uri, lens.scenario]
    return types.CodeLens(
        range=codec.range(lens.range),
        command=types.Command(title=lens.title, command=lens.command, arguments=arguments),
    )


def _markdown(text: str) -> types.MarkupContent:
    return types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
