"""Located problems: the one type the CLI prints and the language server publishes.

Positions are 0-based like LSP's; ``Problem.format`` turns them 1-based for humans.
Characters are counted in code points (what PyYAML and ``json`` report), not UTF-16 units.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple


class Position(NamedTuple):
    """A 0-based line and code-point column. A tuple: ordered, and cheap to create (the
    reader makes two per node of a file with hundreds of thousands)."""

    line: int
    character: int


class Range(NamedTuple):
    start: Position
    end: Position  # exclusive

    @staticmethod
    def of(start_line: int, start_character: int, end_line: int, end_character: int) -> Range:
        return Range(Position(start_line, start_character), Position(end_line, end_character))

    @staticmethod
    def point(line: int, character: int) -> Range:
        pos = Position(line, character)
        return Range(pos, pos)

    def contains(self, pos: Position) -> bool:
        # An empty range (e.g. the missing value of `key:`) still "contains" its own point.
        return self.start <= pos < self.end or pos == self.start


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFORMATION = "information"
    HINT = "hint"


@dataclass(frozen=True, slots=True)
class TextEdit:
    range: Range
    new_text: str


@dataclass(frozen=True, slots=True)
class Problem:
    code: str
    message: str
    range: Range
    severity: Severity = Severity.ERROR
    fix: tuple[TextEdit, ...] = ()
    fix_title: str | None = None

    def format(self, path: str) -> str:
        start = self.range.start
        return (
            f"{path}:{start.line + 1}:{start.character + 1}: {self.severity.value}: {self.message}"
        )
