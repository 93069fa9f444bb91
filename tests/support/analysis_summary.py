"""An analysis as plain data (its tree, problems, scenarios, checks and outline), for tests
that compare two analyses of the same text made different ways (incremental, folded rows,
the fast JSON path)."""

from __future__ import annotations

from typing import Any

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.tree import Node
from checkspec.server.analysis.symbols import document_symbols


def tree(node: Node | None) -> Any:
    """A node tree as plain data: kinds, ranges and values (scalars), children in order."""
    if node is None:
        return None
    if node.kind == "mapping":
        children: Any = [(tree(k), tree(v)) for k, v in node.entries]
    elif node.kind == "sequence":
        children = [tree(item) for item in node.items]
    else:
        children = repr(node.value)
    return (node.kind, tuple(node.range), children)


def _problems(problems: list[Any]) -> list[Any]:
    return sorted(
        (p.code, p.message, tuple(p.range), p.severity.value, p.fix, p.fix_title) for p in problems
    )


def summary(document: Document) -> dict[str, Any]:
    """Everything the editor shows of an analysis, as plain data."""
    return {
        "kind": document.kind,
        "tree": tree(document.source.root),
        "reader": _problems(document.source.problems),
        "problems": _problems(document.every_problem()),
        "shown": [(p.code, tuple(p.range)) for p in document.all_problems],
        "scenarios": [
            (
                e.index,
                e.name,
                tuple(e.range),
                tuple(e.head),
                e.tags,
                e.scenario is None,
                e.scenario.model_dump(mode="json") if e.scenario is not None else None,
                [(c.step, c.index, c.kind, tuple(c.head), tuple(c.node.range)) for c in e.checks],
                _problems(e.problems),
            )
            for e in document.scenarios
        ],
        "symbols": document_symbols(document),
    }


def shape(node: Node) -> Any:
    """Everything a reader decides about a node: kind, value, range, children."""
    return (
        node.kind,
        repr(node.value),
        node.range,
        len(node.entries),
        [shape(child) for pair in node.entries for child in pair],
        [shape(item) for item in node.items],
    )
