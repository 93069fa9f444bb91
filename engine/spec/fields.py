"""Reading a spec mapping's fields: a value of the wrong shape is a located problem.

Shared by the analyses of checks, scenarios, suites, datasets and checkspec.yaml; none of
these raise on a wrong value, they record a problem and read on.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from ..catalog import SCHEMA_KEY, fields_of
from ..targets import describe_target_problem
from .locate import misnamed
from .problems import Problem, Severity
from .tree import Node
from .yaml_traps import comma_hint


def keys_of(model: type[BaseModel]) -> frozenset[str]:
    """Every key a mapping of this model may hold (from the catalog, with every spelling)."""
    return frozenset(s for spec in fields_of(model).values() for s in spec.spellings)


def is_mapping(node: Node, what: str, into: list[Problem]) -> bool:
    """Whether `node` is a mapping; if not, a problem saying `what` must be one (in `into`)."""
    if node.kind == "mapping":
        return True
    into.append(Problem("invalid-structure", f"{what} must be a mapping", node.range))
    return False


def unknown_keys(node: Node, allowed: frozenset[str], what: str) -> list[Problem]:
    problems: list[Problem] = []
    for key, _value in node.entries:
        if key.value not in allowed:
            names = sorted(k for k in allowed if k != SCHEMA_KEY)
            message = f"unknown field '{key.value}' in {what}{comma_hint(node, key)}"
            problems.append(misnamed("unknown-field", message, str(key.value), names, key.range))
    return problems


def as_list(node: Node | None, what: str, problems: list[Problem]) -> Sequence[Node]:
    if node is None or node.value is None:
        return []
    if node.kind != "sequence":
        problems.append(Problem("invalid-structure", f"{what} must be a list", node.range))
        return []
    return node.items


def as_string(node: Node | None, what: str, problems: list[Problem]) -> str | None:
    if node is None or node.value is None:
        return None
    if not isinstance(node.value, str):
        problems.append(Problem("invalid-value", f"{what} must be a string", node.range))
        return None
    return node.value


def tags_of(node: Node | None, problems: list[Problem]) -> list[str]:
    tags: list[str] = []
    for item in as_list(node, "tags", problems):
        if isinstance(item.value, str):
            tags.append(item.value)
        else:
            problems.append(Problem("invalid-value", "a tag must be a string", item.range))
    return tags


def target_of(node: Node | None, problems: list[Problem]) -> str | None:
    target = as_string(node, "target", problems)
    if target is not None and node is not None and (why := describe_target_problem(target)):
        problems.append(Problem("bad-target", why, node.range))
    return target


def has_errors(problems: list[Problem]) -> bool:
    return any(p.severity is Severity.ERROR for p in problems)
