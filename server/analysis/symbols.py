"""Document symbols: scenarios > steps > checks, and the custom checks of checkspec.yaml."""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.kinds import FileKind
from checkspec.engine.spec.problems import Range
from checkspec.engine.spec.scenario_analysis import CheckEntry, ScenarioEntry
from checkspec.engine.spec.tree import Node

from .places import head_of, step_nodes, within
from .trace_paths import preview


class SymbolRole(enum.Enum):
    SCENARIO = "scenario"
    STEP = "step"
    CHECK = "check"
    CUSTOM_CHECK = "custom check"
    MORE = "more"  # stands for the entries left out of a very long list


@dataclass(frozen=True)
class Symbol:
    name: str
    role: SymbolRole
    range: Range  # the whole thing
    selection: Range  # its name, inside `range`
    detail: str = ""
    children: tuple[Symbol, ...] = ()


T = TypeVar("T")

# The outline of a file with a million steps would take the editor longer to show than to
# read; past this many symbols one "... more" entry stands for the rest of its list.
MAX_SYMBOLS = 2000


class _Budget:
    def __init__(self, limit: int) -> None:
        self.left = limit

    def take(self) -> bool:
        self.left -= 1
        return self.left >= 0


def document_symbols(document: Document, limit: int = MAX_SYMBOLS) -> list[Symbol]:
    budget = _Budget(limit)
    if document.kind is FileKind.CONFIG:
        return _custom_checks(document, budget)
    return _bounded(
        document.scenarios,
        budget,
        "scenarios",
        lambda e: e.node,
        lambda _, entry: _scenario(entry, budget),
    )


def _bounded(
    items: Sequence[T],
    budget: _Budget,
    what: str,
    node_of: Callable[[T], Node],
    build: Callable[[int, T], Symbol],
) -> list[Symbol]:
    """`build(index, item)` for the items the budget allows, then one "… N more" symbol."""
    found: list[Symbol] = []
    for index, item in enumerate(items):
        if not budget.take():
            found.append(_more(len(items) - index, what, node_of(item).range))
            break
        found.append(build(index, item))
    return found


def _more(count: int, what: str, rng: Range) -> Symbol:
    """Stands for the `count` items left out, at the first of them."""
    start = Range(rng.start, rng.start)
    return Symbol(f"… {count:,} more {what}", SymbolRole.MORE, start, start)


def _scenario(entry: ScenarioEntry, budget: _Budget) -> Symbol:
    checks: dict[int, list[CheckEntry]] = defaultdict(list)
    for check in entry.checks:
        checks[check.step].append(check)
    steps = _bounded(
        step_nodes(entry),
        budget,
        "steps",
        lambda node: node,
        lambda index, node: _step(index, node, checks[index], budget),
    )
    detail = "not runnable" if entry.scenario is None else ", ".join(entry.tags)
    detail = "; ".join(part for part in (detail, *_review_of(entry.node)) if part)
    return Symbol(
        entry.name,
        SymbolRole.SCENARIO,
        entry.range,
        within(entry.head, entry.range),
        detail=detail,
        children=tuple(steps),
    )


def _review_of(node: Node) -> list[str]:
    """A scenario's status when draft and how many comments it has (the outline shows them)."""
    if node.kind != "mapping":
        return []
    parts = []
    status = node.get("status")
    if status is not None and status.value == "draft":
        parts.append("draft")
    comments = node.get("comments")
    if comments is not None and comments.kind == "sequence" and comments.items:
        count = len(comments.items)
        parts.append(f"{count} comment" if count == 1 else f"{count} comments")
    return parts


def _step(index: int, node: Node, checks: list[CheckEntry], budget: _Budget) -> Symbol:
    return Symbol(
        f"step {index + 1}",
        SymbolRole.STEP,
        node.range,
        within(head_of(node), node.range),
        detail=_first_input(node),
        children=tuple(
            _bounded(checks, budget, "checks", lambda c: c.node, lambda _, c: _check(c))
        ),
    )


def _check(check: CheckEntry) -> Symbol:
    value = check.node.value
    name = value.get("name") if isinstance(value, dict) else None
    detail = name if isinstance(name, str) else ""
    label = value.get("expect") if isinstance(value, dict) else None
    if label in ("pass", "fail"):  # a person's label (`checkspec calibrate`)
        detail = f"{detail} · labelled {label}" if detail else f"labelled {label}"
    return Symbol(
        check.kind,
        SymbolRole.CHECK,
        check.node.range,
        within(check.head, check.node.range),
        detail=detail,
    )


def _first_input(step: Node) -> str:
    """The first thing a step sends, as a hint in the outline."""
    if step.kind != "mapping":
        return ""
    if "input" in step.value:  # a dataset turn
        return preview(step.value["input"], 40)
    interacts = step.value.get("interacts")
    if isinstance(interacts, list) and interacts and isinstance(interacts[0], dict):
        return preview(interacts[0].get("inputs"), 40)
    return ""


def _custom_checks(document: Document, budget: _Budget) -> list[Symbol]:
    root = document.source.root
    customs = root.get("custom_checks") if root is not None and root.kind == "mapping" else None
    if customs is None or customs.kind != "sequence":
        return []
    named = [
        (item, identifier)
        for item in customs.items
        if (identifier := item.get("identifier") if item.kind == "mapping" else None) is not None
        and isinstance(identifier.value, str)
    ]
    return _bounded(
        named, budget, "custom checks", lambda pair: pair[0], lambda _, pair: _custom_check(pair)
    )


def _custom_check(pair: tuple[Node, Node]) -> Symbol:
    item, identifier = pair
    base = item.value.get("params")
    kind = base.get("type") if isinstance(base, dict) else None
    return Symbol(
        identifier.value,
        SymbolRole.CUSTOM_CHECK,
        item.range,
        within(identifier.range, item.range),
        detail=kind if isinstance(kind, str) else "",
    )
