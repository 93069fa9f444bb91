"""A quick fix for a check that lacks required parameters: write them, with placeholders.

The check is found from the problem's place (its `kind:` or dataset `identifier:`), the
parameters it needs from the schema service (schema.py, which reads the check's own
validation); they are added below the last line of a block mapping, at its indentation,
or before the `}` of a flow one.
"""

from __future__ import annotations

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.problems import Position, Problem, Range, TextEdit
from checkspec.engine.spec.workspace import Workspace

from .places import roots_of, walk_values
from .schema import FieldDoc, field_docs, needed_parameters, placeholder

CODE = "missing-parameter"


def add_parameters_fix(
    document: Document, problem: Problem, workspace: Workspace | None = None
) -> tuple[str, tuple[TextEdit, ...]] | None:
    """(title, edits) adding what the check at `problem` needs; None when nothing is known."""
    if problem.code != CODE:
        return None
    found = _check_named_at(document, problem.range)
    if found is None:
        return None
    mapping, head_key, kind = found
    target = mapping
    if head_key == "identifier":  # a dataset check: parameters go under `params`
        params = mapping.get("params")
        target = params if params is not None and params.kind == "mapping" else None
    given = tuple(str(k) for k in (target.value if target is not None else {}))
    custom = (workspace.custom_checks if workspace is not None else {}).get(kind)
    if custom is not None:
        kind, given = custom.base_kind, (*given, *custom.check_params())
    needed = needed_parameters(kind, given)
    if not needed:
        return None
    docs = field_docs(kind)
    edits = (
        _into(target, needed, docs) if target is not None else _with_params(mapping, needed, docs)
    )
    names = ", ".join(f"'{n}'" for n in needed)
    return f"Add {names}", edits


def _check_named_at(document: Document, rng: Range):  # -> (mapping, head key, kind) | None
    for root in roots_of(document):
        stack = [root]
        while stack:
            node = stack.pop()
            if node.kind == "mapping":
                for key in ("kind", "identifier"):
                    value = node.get(key)
                    if value is not None and value.range == rng and isinstance(value.value, str):
                        return node, key, value.value
            for _key, child in walk_values(node) if node.kind == "mapping" else []:
                if child.kind != "scalar":
                    stack.append(child)
            if node.kind == "sequence":
                stack.extend(node.items)
    return None


def _into(mapping, needed: list[str], docs: dict[str, FieldDoc]) -> tuple[TextEdit, ...]:
    entries = mapping.entries
    if not entries:
        return ()
    first_key, last_value = entries[0][0], entries[-1][1]
    at = Range(last_value.range.end, last_value.range.end)
    lines = [f"{name}: {placeholder(docs.get(name))}" for name in needed]
    if mapping.range.start != first_key.range.start:  # flow style: `{kind: x}`
        return (TextEdit(at, "".join(f", {line}" for line in lines)),)
    indent = " " * first_key.range.start.character
    return (TextEdit(at, "".join(f"\n{indent}{line}" for line in lines)),)


def _with_params(mapping, needed: list[str], docs: dict[str, FieldDoc]) -> tuple[TextEdit, ...]:
    entries = mapping.entries
    first_key, last_value = entries[0][0], entries[-1][1]
    end: Position = last_value.range.end
    at = Range(end, end)
    if mapping.range.start != first_key.range.start:
        inner = ", ".join(f"{n}: {placeholder(docs.get(n))}" for n in needed)
        return (TextEdit(at, f", params: {{{inner}}}"),)
    indent = " " * first_key.range.start.character
    lines = "".join(f"\n{indent}  {n}: {placeholder(docs.get(n))}" for n in needed)
    return (TextEdit(at, f"\n{indent}params:{lines}"),)
