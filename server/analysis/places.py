"""Where the parts of a scenario are written: its steps and a short place to point at."""

from __future__ import annotations

from checkspec.engine.spec.document import ScenarioEntry
from checkspec.engine.spec.problems import Range
from checkspec.engine.spec.source import Node


def step_nodes(entry: ScenarioEntry) -> list[Node]:
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
