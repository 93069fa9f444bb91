"""Markdown documentation of checks and parameters, generated from the models, in the
words and shape of a spec file (YAML), compact enough for a completion's side panel.

Hover and completion show the same text, so it is written in one place.
"""

from __future__ import annotations

import inspect
from typing import Any

import yaml
from pydantic import BaseModel

from checkspec.engine.spec.workspace_config import CustomCheck

from .schema import NOT_SET, FieldDoc, check_fields, field_docs, needed_parameters, placeholder


def check_markdown(
    kind: str,
    cls: type[BaseModel],
    *,
    fields: dict[str, FieldDoc] | None = None,
    dataset: bool = False,
    custom: CustomCheck | None = None,
    summary: bool = True,
) -> str:
    """A check as it is written in a file: what it does (the docstring's first paragraph),
    a YAML example with the parameters it needs, then one line per parameter.

    `fields` are the parameters as documented where the check is written (a dataset gives
    some other defaults); by default the class's own. Without `summary` the first line is
    left out (a completion item shows it as its detail already).
    """
    parts = [f"**{kind}**"]
    if custom is not None:
        parts[0] += f" — custom check based on `{custom.base_kind}`"
        about = custom.description or custom.name
        if about:
            parts.append(about)
        preset = custom.check_params()
        if preset:
            parts.append(
                yaml_block({"type": custom.base_kind, **preset}, "Preset in checkspec.yaml:")
            )
    elif summary:
        about = first_paragraph(cls.__doc__)
        if about:
            parts[0] += f" — {about}"
    else:
        parts = []
    if fields is None:
        fields = check_fields(cls, dataset=dataset)
    shown = {name: doc for name, doc in fields.items() if name not in ("kind", "type")}
    base = custom.base_kind if custom is not None else kind
    needed = needed_parameters(base, tuple(custom.check_params()) if custom is not None else ())
    if custom is None:
        parts.append(example(kind, dataset))
    parts.append(parameter_list(shown, needed))
    return "\n\n".join(p for p in parts if p)


def first_paragraph(doc: str | None) -> str:
    """A docstring's first paragraph on one line (the rest is about the Python API)."""
    text = inspect.cleandoc(doc or "")
    return " ".join(text.split("\n\n", 1)[0].split())


def example(kind: str, dataset: bool = False) -> str:
    """How the check is written, with the parameters it cannot do without."""
    docs = field_docs(kind)
    needed = [f"{name}: {placeholder(docs.get(name))}" for name in needed_parameters(kind)]
    if dataset:
        lines = [f"- identifier: {kind}"]
        if needed:
            lines.append("  params:")
            lines.extend(f"    {line}" for line in needed)
    else:
        lines = [f"- kind: {kind}", *(f"  {line}" for line in needed)]
    return "```yaml\n" + "\n".join(lines) + "\n```"


def yaml_block(value: dict[str, Any], title: str) -> str:
    """A mapping as YAML, the way it is written in a file (no doubled backslashes)."""
    text = yaml.safe_dump(value, default_flow_style=False, sort_keys=False, allow_unicode=True)
    return f"{title}\n\n```yaml\n{text.rstrip()}\n```"


def parameter_list(fields: dict[str, FieldDoc], needed: list[str] | tuple[str, ...] = ()) -> str:
    """One line per parameter, those a check cannot do without first:
    `name` *type*, required | default — description."""
    lines = []
    order = sorted(fields.values(), key=lambda doc: doc.name not in needed and not doc.required)
    for doc in order:
        if doc.required or doc.name in needed:
            how = "**required**"
        elif doc.default == NOT_SET or doc.default is None:
            how = "optional"
        else:
            how = f"default `{doc.default}`"
        about = f" — {' '.join(doc.description.split())}" if doc.description else ""
        lines.append(f"- `{doc.name}` *{_escaped(doc.type)}*, {how}{about}")
    return "\n".join(lines)


def _escaped(text: str) -> str:
    return text.replace("*", "\\*").replace("_", "\\_")


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
