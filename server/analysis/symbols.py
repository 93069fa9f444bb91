"""Document symbols: scenarios > steps > checks, and the custom checks of checkspec.yaml."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from checkspec.engine.spec.document import CheckEntry, Document, ScenarioEntry
from checkspec.engine.spec.kinds import FileKind
from checkspec.engine.spec.problems import Range
from checkspec.engine.spec.source import Node

from .places import head_of, step_nodes, within
from .trace_paths import preview


class SymbolRole(enum.Enum):
    SCENARIO = "scenario"
    STEP = "step"
    CHECK = "check"
    CUSTOM_CHECK = "custom check"


@dataclass(frozen=True)
class Symbol:
    name: str
    role: SymbolRole
    range: Range  # the whole thing
    selection: Range  # its name, inside `range`
    detail: str = ""
    children: tuple[Symbol, ...] = ()


def document_symbols(document: Document) -> list[Symbol]:
    if document.kind is FileKind.CONFIG:
        return _custom_checks(document)
    return [_scenario(entry) for entry in document.scenarios]


def _scenario(entry: ScenarioEntry) -> Symbol:
    steps = []
    for index, node in enumerate(step_nodes(entry)):
        checks = tuple(_check(c) for c in entry.checks if c.step == index)
        steps.append(
            Symbol(
                f"step {index + 1}",
                SymbolRole.STEP,
                node.range,
                within(head_of(node), node.range),
                detail=_first_input(node),
                children=checks,
            )
        )
    detail = "not runnable" if entry.scenario is None else ", ".join(entry.tags)
    return Symbol(
        entry.name,
        SymbolRole.SCENARIO,
        entry.range,
        within(entry.head, entry.range),
        detail=detail,
        children=tuple(steps),
    )


def _check(check: CheckEntry) -> Symbol:
    value = check.node.value
    name = value.get("name") if isinstance(value, dict) else None
    return Symbol(
        check.kind,
        SymbolRole.CHECK,
        check.node.range,
        within(check.head, check.node.range),
        detail=name if isinstance(name, str) else "",
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


def _custom_checks(document: Document) -> list[Symbol]:
    root = document.source.root
    customs = root.get("custom_checks") if root is not None and root.kind == "mapping" else None
    if customs is None or customs.kind != "sequence":
        return []
    found = []
    for item in customs.items:
        identifier = item.get("identifier") if item.kind == "mapping" else None
        if identifier is None or not isinstance(identifier.value, str):
            continue
        base = item.value.get("params")
        kind = base.get("type") if isinstance(base, dict) else None
        found.append(
            Symbol(
                identifier.value,
                SymbolRole.CUSTOM_CHECK,
                item.range,
                within(identifier.range, item.range),
                detail=kind if isinstance(kind, str) else "",
            )
        )
    return found
