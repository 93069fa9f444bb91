"""Quick fixes: the text edits a problem carries (rename a misspelt kind, a deprecated key)."""

from __future__ import annotations

from dataclasses import dataclass

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.problems import Problem, Range, TextEdit


@dataclass(frozen=True)
class QuickFix:
    title: str
    problem: Problem
    edits: tuple[TextEdit, ...]


def quick_fixes(document: Document, within: Range) -> list[QuickFix]:
    """One fix per problem that has one and touches `within` (a selection or the cursor)."""
    return [
        QuickFix(problem.fix_title or f"Fix: {problem.message}", problem, problem.fix)
        for problem in document.all_problems
        if problem.fix and _touches(problem.range, within)
    ]


def _touches(a: Range, b: Range) -> bool:
    return a.start <= b.end and b.start <= a.end
