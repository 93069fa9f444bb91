"""References and rename of custom checks across a workspace, open or not.

Every spec file of the workspace (the folder of its checkspec.yaml) is read, through the
editor's text when it is open; only files that mention the identifier are analysed.
"""

from __future__ import annotations

from pathlib import Path

from checkspec.engine.spec.document import Document, analyze
from checkspec.engine.spec.problems import Position, Range, TextEdit
from checkspec.engine.spec.workspace import Workspace

from . import custom_checks
from .definition import Place, ReadText, custom_definition
from .workspace_files import spec_files


def references(
    identifier: str,
    workspace: Workspace,
    read: ReadText,
    *,
    include_definition: bool = True,
    also: tuple[Path, ...] = (),
) -> list[Place]:
    """The definition (first) and every use of a custom check in the workspace.

    `also`: files to search besides the workspace's (an open file outside any workspace).
    """
    places: list[Place] = []
    if include_definition:
        found = custom_definition(identifier, workspace, read)
        if found is not None:
            places.append(found)
    files = list(spec_files(workspace.root)) if workspace.root is not None else []
    seen = {path.resolve() for path in files}
    files.extend(path for path in also if path.resolve() not in seen)
    for path in files:
        text = read(path)
        if text is None or identifier not in text:
            continue
        document = analyze(text, str(path), workspace, keep=False)
        places.extend(Place(path, rng) for rng in custom_checks.uses(document, identifier))
    return places


def prepare_rename(document: Document, position: Position) -> tuple[str, Range] | None:
    """The identifier's text and range, or None where nothing may be renamed (built-ins)."""
    return custom_checks.identifier_at(document, position)


def rename_edits(
    identifier: str,
    new_name: str,
    workspace: Workspace,
    read: ReadText,
    also: tuple[Path, ...] = (),
) -> dict[Path, list[TextEdit]]:
    """Text edits per file renaming a custom check everywhere; ValueError for a bad name."""
    if not custom_checks.IDENTIFIER.match(new_name):
        raise ValueError(
            f"'{new_name}' is not a custom check identifier: it must start with custom_ "
            "and hold only letters, digits and _"
        )
    if custom_definition(identifier, workspace, read) is None:
        raise ValueError(f"'{identifier}' is not defined in checkspec.yaml")
    if new_name != identifier and custom_definition(new_name, workspace, read) is not None:
        raise ValueError(f"'{new_name}' is already defined in checkspec.yaml")
    edits: dict[Path, list[TextEdit]] = {}
    for place in references(identifier, workspace, read, also=also):
        edits.setdefault(place.path, []).append(TextEdit(place.range, new_name))
    return edits
