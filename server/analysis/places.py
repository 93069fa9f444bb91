"""Where things are written: a scenario's steps, a short place to point at, the value at
a position (JSON Lines included), every value of a tree."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.problems import Position, Range
from checkspec.engine.spec.scenario_analysis import ScenarioEntry
from checkspec.engine.spec.tree import Key, Node

from .rows import row_document


def step_nodes(entry: ScenarioEntry) -> Sequence[Node]:
    """The steps of a scenario (`steps`), or the turns of a dataset record (`interactions`)."""
    node = entry.node
    if node.kind != "mapping":
        return []
    steps = node.get("steps")
    if steps is None:
        steps = node.get("interactions")
    return steps.items if steps is not None and steps.kind == "sequence" else []


def head_of(node: Node) -> Range:
    """A short range naming a mapping: its first key (else its start)."""
    if node.kind == "mapping":
        for key, _value in node.entries:
            # Keys merged in with `<<` sit at their anchor, elsewhere: skip them.
            if node.range.start <= key.range.start and key.range.end <= node.range.end:
                return key.range
    return Range(node.range.start, node.range.start)


def step_head(entry: ScenarioEntry, step: int) -> Range:
    """Where to report something about one step (the scenario's head if it is not found)."""
    steps = step_nodes(entry)
    return head_of(steps[step]) if 0 <= step < len(steps) else entry.head


def within(inner: Range, outer: Range) -> Range:
    """`inner` when it lies in `outer`, else the start of `outer` (LSP nests them)."""
    if outer.start <= inner.start and inner.end <= outer.end:
        return inner
    return Range(outer.start, outer.start)


def roots_of(document: Document) -> list[Node]:
    """The trees of a document: its root, or for JSON Lines one per record."""
    if document.source.root is not None:
        return [document.source.root]
    return [entry.node for entry in document.scenarios]


def value_at(document: Document, position: Position) -> tuple[Key, Node, Node] | None:
    """(key, value node, mapping) when `position` is on a scalar value of a mapping entry."""
    document = row_document(document, position.line)  # JSON Lines: the line's row alone
    for root in roots_of(document):
        if not (root.range.start <= position <= root.range.end):
            continue
        found = _value_in(root, position)
        if found is not None:
            return found
    return None


def _value_in(node: Node, position: Position) -> tuple[Key, Node, Node] | None:
    while True:
        if node.kind == "mapping":
            for key, value in node.entries:
                if value.kind == "scalar" and _on(value.range, position):
                    return key.value, value, node
                if value.kind != "scalar" and value.range.start <= position <= value.range.end:
                    node = value
                    break
            else:
                return None
        elif node.kind == "sequence":
            inner = next((i for i in node.items if i.range.start <= position <= i.range.end), None)
            if inner is None:
                return None
            node = inner
        else:
            return None


def _on(rng: Range, position: Position) -> bool:
    return rng.start <= position <= rng.end


def walk_values(node: Node) -> Iterator[tuple[Key, Node]]:
    """Every (key, value node) of the mappings in a tree, in document order."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.kind == "mapping":
            children = []
            for key, value in current.entries:
                if not (current.range.start <= key.range.start <= current.range.end):
                    continue  # merged in with `<<`: written at its anchor, seen there
                yield key.value, value
                children.append(value)
            stack.extend(reversed(children))
        elif current.kind == "sequence":
            stack.extend(reversed(current.items))
