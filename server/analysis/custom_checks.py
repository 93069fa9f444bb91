"""Custom checks across a workspace: where one is defined and every place that uses it.

A custom check is defined once, as `identifier:` of an item of `custom_checks` in
checkspec.yaml, and used as the `kind:` (or dataset `identifier:`) of a check in any spec
file of that workspace, nested checks included. Definition, references and rename all
work from these two lists of places.
"""

from __future__ import annotations

import re

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.kinds import FileKind
from checkspec.engine.spec.problems import Position, Range
from checkspec.engine.spec.workspace_config import CUSTOM_PREFIX

from .places import roots_of, value_at, walk_values

IDENTIFIER = re.compile(r"^custom_[A-Za-z0-9_]+$")
_USE_KEYS = ("kind", "identifier")


def identifier_at(document: Document, position: Position) -> tuple[str, Range] | None:
    """The custom check identifier the cursor is on (a use, or its definition)."""
    found = value_at(document, position)
    if found is None:
        return None
    key, node, _mapping = found
    value = node.value
    if key not in _USE_KEYS or not isinstance(value, str) or not value.startswith(CUSTOM_PREFIX):
        return None
    return value, node.range


def uses(document: Document, identifier: str) -> list[Range]:
    """Where a spec file names `identifier` as a check (checkspec.yaml: nowhere)."""
    if document.kind is FileKind.CONFIG:
        return []
    return [
        node.range
        for root in roots_of(document)
        for key, node in walk_values(root)
        if key in _USE_KEYS and node.value == identifier and node.kind == "scalar"
    ]


def definition(config: Document, identifier: str) -> Range | None:
    """The `identifier:` value defining it in checkspec.yaml."""
    root = config.source.root
    customs = root.get("custom_checks") if root is not None and root.kind == "mapping" else None
    if customs is None or customs.kind != "sequence":
        return None
    for item in customs.items:
        node = item.get("identifier") if item.kind == "mapping" else None
        if node is not None and node.value == identifier:
            return node.range
    return None
