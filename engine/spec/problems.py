"""Located problems: the one type the CLI prints and the language server publishes.

Positions are 0-based like LSP's; ``Problem.format`` turns them 1-based for humans.
Characters are counted in code points (what PyYAML and ``json`` report), not UTF-16 units.
Also what the analyses share about them: moving them with their lines, the problems a file
shows (at most MAX_PROBLEMS), and the one that says an analysis failed.
"""

from __future__ import annotations

import enum
import heapq
from collections import Counter
from dataclasses import dataclass, replace
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


def moved(rng: Range, lines: int) -> Range:
    """`rng` `lines` lines further down."""
    (sl, sc), (el, ec) = rng
    return Range(Position(sl + lines, sc), Position(el + lines, ec))


def moved_problem(problem: Problem, lines: int) -> Problem:
    if not lines:
        return problem
    fix = tuple(replace(e, range=moved(e.range, lines)) for e in problem.fix)
    return replace(problem, range=moved(problem.range, lines), fix=fix)


MAX_PROBLEMS = 1000


def _where(problem: Problem) -> tuple[int, int]:
    return problem.range.start.line, problem.range.start.character


def shown_problems(problems: list[Problem], limit: int = MAX_PROBLEMS) -> list[Problem]:
    """`problems` in document order, cut to `limit` plus one "... and N more" problem."""
    if len(problems) <= limit:
        return sorted(problems, key=_where)
    first = heapq.nsmallest(limit + 1, problems, key=_where)
    shown = first[:limit]
    left_out = Counter(p.severity for p in problems)
    left_out.subtract(p.severity for p in shown)
    severity = next(s for s in Severity if left_out[s] > 0)  # the worst one left out
    hidden = len(problems) - limit
    message = f"… and {hidden:,} more problems in this file (the first {limit:,} are shown)"
    return [*shown, Problem("more-problems", message, first[limit].range, severity)]


def internal_error(exc: Exception) -> Problem:
    """The problem that says an analysis failed (a bug), at the file's start."""
    message = (
        f"checkspec could not analyse this file ({type(exc).__name__}: {exc}); "
        "this is a bug, please report it"
    )
    return Problem("internal-error", message, Range.point(0, 0))
