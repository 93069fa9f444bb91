"""Turn validation errors and check-level issues into located Problems.

Pydantic reports a `loc` path (`('checks', 1, 'keywrd')`); the located tree maps it
back to the node the user typed, so each message lands on the right key or value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from ..core.check import DEPRECATED_SPELLINGS, Check, FieldIssue, KindModel, did_you_mean
from .problems import Position, Problem, Range, Severity, TextEdit
from .tree import Node
from .yaml_traps import comma_hint


def misnamed(
    code: str, message: str, name: str, candidates: Any, rng: Range, *, rename: bool = True
) -> Problem:
    """A problem about an unknown name, with "did you mean" and a fix when one is close."""
    hint = did_you_mean(name, candidates)
    if hint is None:
        return Problem(code, message, rng)
    return Problem(
        code,
        f"{message}; did you mean '{hint}'?",
        rng,
        fix=(TextEdit(rng, hint),) if rename else (),
        fix_title=f"Change to '{hint}'" if rename else None,
    )


def start_of(node: Node) -> Range:
    """A zero-width range at the node's start, for "missing here" messages."""
    return Range(node.range.start, node.range.start)


def head_range(check_node: Node, head_key: str) -> Range:
    """Where a check is named (`kind:` / `identifier:` value), else the mapping start."""
    head = check_node.get(head_key) if check_node.kind == "mapping" else None
    return head.range if head is not None else start_of(check_node)


def _clean(message: str) -> str:
    for prefix in ("Value error, ", "Assertion failed, "):
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message


def _model_at(check_node: Node, path: tuple[Any, ...], root_cls: type[BaseModel] | None) -> Any:
    """The model class describing the mapping at `path` (follows nested check kinds)."""
    node = check_node.find(path)
    if node is not None and node.kind == "mapping":
        kind = node.value.get("kind") if isinstance(node.value, dict) else None
        found: type[Check] | None = Check.kind_class(kind)
        if found is not None:
            return found
    return root_cls if not path else None


def problems_from_validation(
    exc: ValidationError,
    base: Node,
    *,
    head: Range,
    model: type[BaseModel] | None,
    what: str,
) -> list[Problem]:
    """Located problems for a pydantic error raised validating `base`'s value.

    `head` is where the object is named (a check's kind), used for missing things;
    `what` names the object in messages ("string_matching", "scenario").
    """
    problems: list[Problem] = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        etype = error["type"]
        ctx = error.get("ctx") or {}
        parent_path, last = (loc[:-1], loc[-1]) if loc else ((), None)
        parent = base.find(parent_path) or base
        value_node = _find_written(base, loc)
        where = value_node.range if value_node is not None else head
        nested_head = head if not parent_path else head_range(parent, "kind")
        if etype == "missing":
            problems.append(
                Problem(
                    "missing-parameter",
                    f"{_owner(parent, what)} is missing required parameter '{last}'",
                    nested_head,
                )
            )
        elif etype == "extra_forbidden":
            key = parent.key_node(last) if isinstance(last, str) else None
            cls = _model_at(base, parent_path, model)
            fields = [f for f in getattr(cls, "model_fields", {}) if f != "kind"]
            hint = comma_hint(parent, key) if key is not None else ""
            problems.append(
                misnamed(
                    "unknown-parameter",
                    f"unknown parameter '{last}' for {_owner(parent, what)}{hint}",
                    str(last),
                    fields,
                    key.range if key is not None else where,
                    rename=key is not None,
                )
            )
        elif etype == "unknown_kind":
            kind_node = (base.find(loc) or base).get("kind")
            kind = str(ctx.get("kind", ""))
            rng = kind_node.range if kind_node is not None else where
            # The kinds of the family being validated: checks, or interactions.
            family = model if isinstance(model, type) and issubclass(model, KindModel) else Check
            known = family.registry()
            noun = "check" if issubclass(family, Check) else what
            problems.append(
                misnamed("unknown-kind", f"unknown {noun} kind '{kind}'", kind, known, rng)
            )
        elif etype == "missing_kind":
            problems.append(Problem("missing-parameter", "a check needs a 'kind'", where))
        elif etype == "jsonpath":
            problems.append(Problem("bad-jsonpath", _clean(error["msg"]), where))
        elif etype == "exactly_one":
            owner_node = base.find(loc) or base
            if ctx.get("which") == "both were given":
                key = owner_node.key_node(ctx.get("key_field"))
                problems.append(
                    Problem(
                        "mutually-exclusive",
                        f"'{ctx.get('value_field')}' and '{ctx.get('key_field')}' are mutually "
                        f"exclusive: give one of them",
                        key.range if key is not None else where,
                    )
                )
            else:
                problems.append(
                    Problem(
                        "missing-parameter",
                        f"{_owner(owner_node, what)} needs '{ctx.get('value_field')}' or "
                        f"'{ctx.get('key_field')}'",
                        head_range(owner_node, "kind") if loc else head,
                    )
                )
        else:
            field = ".".join(str(p) for p in loc) if loc else what
            code = "invalid-schema" if str(last).endswith("schema") else "invalid-value"
            problems.append(Problem(code, f"{field}: {_clean(error['msg'])}", where))
    return problems


def _find_written(base: Node, loc: tuple[Any, ...]) -> Node | None:
    """The node at `loc`, also when its last key was written under a deprecated alias."""
    found = base.find(loc)
    if found is None and loc and isinstance(loc[-1], str):
        parent = base.find(loc[:-1])
        for old in DEPRECATED_SPELLINGS.get(loc[-1], ()):
            found = found or (parent.get(old) if parent is not None else None)
    return found


def _owner(node: Node, fallback: str) -> str:
    if node.kind == "mapping" and isinstance(node.value, dict):
        kind = node.value.get("kind")
        if isinstance(kind, str):
            return kind
    return fallback


def issue_problem(issue: FieldIssue, params: Node, head: Range, lines: Sequence[str]) -> Problem:
    """Place a check's own FieldIssue, inside the parameter's text when possible."""
    value = params.get(issue.field)
    if value is None:
        return Problem(issue.code, issue.message, head)
    return Problem(issue.code, issue.message, inner_range(value, issue.line, issue.column, lines))


def inner_range(value: Node, line: int | None, column: int | None, lines: Sequence[str]) -> Range:
    """The document position of (line, column) inside a string scalar's text.

    Exact for plain and quoted one-line scalars without escapes and for block scalars
    (`|`); otherwise the whole value is returned.
    """
    if line is None or value.kind != "scalar" or not isinstance(value.value, str):
        return value.range
    start = value.range.start
    first = lines[start.line] if start.line < len(lines) else ""
    indicator = first[start.character : start.character + 1]
    col = column or 0
    if indicator in ("|", ">"):
        doc_line = start.line + 1 + line
        end = value.range.end
        last = end.line - 1 if end.character == 0 else end.line
        if doc_line > last:  # an error "at end of input": show it at the end of the text
            doc_line = max(last, start.line + 1)
            col = len(lines[doc_line]) if doc_line < len(lines) else 0
            pos = Position(doc_line, col)
            return Range(pos, pos)
        text = lines[doc_line] if doc_line < len(lines) else ""
        indent = len(text) - len(text.lstrip(" "))
        pos = Position(doc_line, indent + col)
        return Range(pos, Position(doc_line, max(indent + col + 1, len(text))))
    if value.range.start.line != value.range.end.line or line != 0:
        return value.range
    raw = first[start.character : value.range.end.character]
    quoted = indicator in ("'", '"')
    inner = raw[1:-1] if quoted else raw
    if inner != value.value:  # escapes or folding: offsets would not line up
        return value.range
    offset = start.character + (1 if quoted else 0) + col
    return Range(Position(start.line, offset), Position(start.line, offset + 1))


def warning(code: str, message: str, rng: Range, **kw: Any) -> Problem:
    return Problem(code, message, rng, Severity.WARNING, **kw)
