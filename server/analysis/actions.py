"""Quick fixes: the text edits a problem carries (rename a misspelt kind, a deprecated key),
and writing the parameters a check lacks."""

from __future__ import annotations

from dataclasses import dataclass

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.problems import Problem, Range, TextEdit
from checkspec.engine.spec.workspace import Workspace

from .add_parameters import add_parameters_fix


@dataclass(frozen=True)
class QuickFix:
    title: str
    problem: Problem
    edits: tuple[TextEdit, ...]


def quick_fixes(
    document: Document, within: Range, workspace: Workspace | None = None
) -> list[QuickFix]:
    """One fix per problem that has one and touches `within` (a selection or the cursor):
    the edits the problem carries, or for a check missing parameters, writing them."""
    fixes = []
    for problem in document.all_problems:
        if not _touches(problem.range, within):
            continue
        if problem.fix:
            fixes.append(
                QuickFix(problem.fix_title or f"Fix: {problem.message}", problem, problem.fix)
            )
            continue
        added = add_parameters_fix(document, problem, workspace)
        # One fix per check, not one per missing parameter.
        if added is not None and all(fix.edits != added[1] for fix in fixes):
            fixes.append(QuickFix(added[0], problem, added[1]))
    return fixes


def _touches(a: Range, b: Range) -> bool:
    return a.start <= b.end and b.start <= a.end
