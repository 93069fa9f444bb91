"""Go to definition: a custom check to its entry in checkspec.yaml, a `python:` target or
an `fn` reference to the function's `def` (read with `ast`, never imported)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from checkspec.engine.spec.document import Document, analyze
from checkspec.engine.spec.kinds import FileKind
from checkspec.engine.spec.problems import Position, Range
from checkspec.engine.spec.workspace import Workspace

from . import custom_checks
from .places import value_at
from .python_source import find_definition, split_reference

# Reads a file's text: the editor's (maybe unsaved) text when it is open, else the disk's.
ReadText = Callable[[Path], str | None]


@dataclass(frozen=True)
class Place:
    path: Path
    range: Range


def definition(
    document: Document,
    position: Position,
    workspace: Workspace,
    read: ReadText,
    folder: Path | None = None,
) -> list[Place]:
    """Where the thing at `position` is defined (empty when it is nothing we know)."""
    custom = custom_checks.identifier_at(document, position)
    if custom is not None:
        if document.kind is FileKind.CONFIG:
            return []  # on the definition itself
        found = custom_definition(custom[0], workspace, read)
        return [found] if found is not None else []
    reference = reference_at(document, position)
    if reference is None:
        return []
    place = find_definition(reference[0], search_folders(folder, workspace))
    return [Place(place.path, place.range)] if place is not None else []


def custom_definition(identifier: str, workspace: Workspace, read: ReadText) -> Place | None:
    config = workspace.config_path
    if config is None:
        return None
    text = read(config)
    if text is None:
        return None
    found = custom_checks.definition(analyze(text, str(config), kind=FileKind.CONFIG), identifier)
    return Place(config, found) if found is not None else None


def reference_at(document: Document, position: Position) -> tuple[str, Range] | None:
    """A `python:` target or an `fn` check's `module:function` under the cursor."""
    found = value_at(document, position)
    if found is None:
        return None
    key, node, _mapping = found
    return code_reference(key, node.value, node.range)


def code_reference(key: object, value: object, rng: Range) -> tuple[str, Range] | None:
    if not isinstance(value, str):
        return None
    if key == "target" and value.startswith("python:") and split_reference(value):
        return value, rng
    if key == "fn" and split_reference(value) is not None:
        return value, rng
    return None


def search_folders(folder: Path | None, workspace: Workspace) -> list[Path]:
    """Where a run imports from: the spec file's folder, then the workspace root."""
    return [f for f in (folder, workspace.root) if f is not None]
