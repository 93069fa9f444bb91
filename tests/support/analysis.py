"""What the analysis-layer tests share: a workspace with a custom check, a scenario with a
recorded trace, and completion and hover at a place named by the text before it."""

from __future__ import annotations

import textwrap
from pathlib import Path

from checkspec.engine.spec.document import Document, analyze
from checkspec.engine.spec.lines import LineIndex
from checkspec.engine.spec.problems import Position, Range
from checkspec.engine.spec.workspace import Workspace, workspace_from_text
from checkspec.server.analysis.actions import quick_fixes
from checkspec.server.analysis.completion import Completion, complete
from checkspec.server.analysis.hover import hover
from checkspec.server.analysis.lenses import code_lenses
from checkspec.server.analysis.symbols import Symbol, document_symbols

WORKSPACE = workspace_from_text(
    textwrap.dedent(
        """
        custom_checks:
          - identifier: custom_polite
            name: Polite
            description: The answer says please.
            params: {type: string_matching, keyword: please}
        """
    ),
    Path("/nowhere/checkspec.yaml"),
)


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def pos(text: str, needle: str, offset: int | None = None) -> Position:
    """Where `needle` ends (or starts + offset) in `text`."""
    index = text.index(needle) + (len(needle) if offset is None else offset)
    line = text.count("\n", 0, index)
    return Position(line, index - (text.rfind("\n", 0, index) + 1))


def items(
    text: str,
    needle: str,
    name: str = "t.scenario.yaml",
    *,
    offset: int | None = None,
    workspace: Workspace | None = WORKSPACE,
    trigger: str | None = None,
    earlier: Document | None = None,
) -> list[Completion]:
    document = analyze(text, name, workspace)
    return complete(
        document, text, pos(text, needle, offset), workspace, trigger=trigger, earlier=earlier
    )


def labels(found: list[Completion]) -> list[str]:
    return [item.label for item in found]


SCENARIO = dedent(
    """
    name: refund
    annotations: {user: bob}
    steps:
      - interacts:
          - inputs: What is your refund policy?
            outputs: {answer: 30-day refund, score: 0.9, details: {days: 30}}
            metadata: {latency_ms: 12}
        checks:
          - kind: string_matching
            target_key: trace.last.outputs.answer
            keyword: 30-day
          - kind: greater_than
            target_key: trace.last.outputs.nope
            expected_value: 0.5
      - interacts:
          - inputs: And exchanges?
            outputs: {verdict: yes, reason: policy}
        checks:
          - kind: equals
            target_key: trace.last.outputs.verdict
            expected_value: "yes"
    """
)


def hover_at(
    text: str, needle: str, name: str = "t.scenario.yaml", workspace: Workspace | None = WORKSPACE
) -> str:
    found = hover(analyze(text, name, workspace), pos(text, needle, 1), workspace)
    assert found is not None, needle
    return found.markdown


def symbols(found: list[Symbol]) -> list[Symbol]:
    out = []
    for symbol in found:
        out.append(symbol)
        out.extend(symbols(list(symbol.children)))
    return out


def ranges_of(document: Document) -> list[Range]:
    """Every range the analysis hands to the editor for this document."""
    found = [p.range for p in document.all_problems]
    found += [edit.range for p in document.all_problems for edit in p.fix]
    for symbol in symbols(document_symbols(document)):
        found += [symbol.range, symbol.selection]
    found += [lens.range for lens in code_lenses(document)]
    everything = Range(Position(0, 0), LineIndex(document.source.text).end)
    found += [edit.range for fix in quick_fixes(document, everything) for edit in fix.edits]
    return found
