"""Document links: each `python:` target and `fn` reference links to its function."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.problems import Range
from checkspec.engine.spec.workspace import Workspace

from .definition import code_reference, search_folders
from .places import roots_of, walk_values
from .python_source import find_definition

MAX_LINKS = 500  # a suite of thousands of scenarios repeats one target: the first ones do


@dataclass(frozen=True)
class Link:
    range: Range  # the reference in the spec file
    path: Path  # the module
    line: int  # 0-based line of its `def`


def document_links(document: Document, workspace: Workspace, folder: Path | None) -> list[Link]:
    folders = search_folders(folder, workspace)
    links: list[Link] = []
    resolved: dict[str, Link | None] = {}
    for root in roots_of(document):
        for key, node in walk_values(root):
            found = code_reference(key, node.value, node.range)
            if found is None:
                continue
            reference, rng = found
            if reference not in resolved:
                place = find_definition(reference, folders)
                resolved[reference] = (
                    Link(rng, place.path, place.range.start.line) if place else None
                )
            link = resolved[reference]
            if link is not None:
                links.append(Link(rng, link.path, link.line))
            if len(links) >= MAX_LINKS:
                return links
    return links
