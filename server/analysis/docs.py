"""Markdown documentation of checks and parameters, generated from the models.

Hover and completion show the same text, so it is written in one place.
"""

from __future__ import annotations

import inspect

from pydantic import BaseModel

from checkspec.engine.spec.workspace import CustomCheck

from .schema import NOT_SET, FieldDoc, check_fields, render_value


def check_markdown(
    kind: str,
    cls: type[BaseModel],
    *,
    fields: dict[str, FieldDoc] | None = None,
    dataset: bool = False,
    custom: CustomCheck | None = None,
) -> str:
    """A check's docstring, then a table of its parameters (name, type, default, description).

    `fields` are the parameters as documented where the check is written (a dataset gives
    some other defaults); by default the class's own.
    """
    parts = [f"**{kind}**"]
    if custom is not None:
        parts[0] += f" — custom check based on `{custom.base_kind}`"
        about = custom.description or custom.name
        if about:
            parts.append(about)
        preset = ", ".join(f"`{k}: {render_value(v)}`" for k, v in custom.check_params().items())
        if preset:
            parts.append(f"Preset: {preset}")
    doc = inspect.cleandoc(cls.__doc__ or "")
    if doc:
        parts.append(doc)
    if fields is None:
        fields = check_fields(cls, dataset=dataset)
    shown = {name: doc for name, doc in fields.items() if name not in ("kind", "type")}
    parts.append(parameter_table(shown))
    return "\n\n".join(parts)


def parameter_table(fields: dict[str, FieldDoc]) -> str:
    rows = [
        "| parameter | type | default | description |",
        "| --- | --- | --- | --- |",
    ]
    for doc in fields.values():
        default = _default_cell(doc)
        rows.append(f"| `{doc.name}` | {_cell(doc.type)} | {default} | {_cell(doc.description)} |")
    return "\n".join(rows)


def field_markdown(doc: FieldDoc, where: str | None = None) -> str:
    """One parameter: its type, default, accepted values and description."""
    head = f"**{doc.name}**: `{doc.type}`"
    if where:
        head += f" — {where}"
    lines = [head]
    if doc.description:
        lines.append(doc.description)
    if doc.required:
        lines.append("Required.")
    elif doc.default != NOT_SET:
        lines.append(f"Default: `{doc.default}`")
    if doc.choices and doc.type != "boolean":
        lines.append("One of: " + ", ".join(f"`{c}`" for c in doc.choices))
    if doc.spellings:
        lines.append("Also accepted as: " + ", ".join(f"`{s}`" for s in doc.spellings))
    return "\n\n".join(lines)


def _default_cell(doc: FieldDoc) -> str:
    if doc.required:
        return "*required*"
    if doc.default == NOT_SET:
        return "—"
    return f"`{_cell(doc.default or '')}`"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")
