"""A JSON Lines dataset seen from one of its rows, for the requests made at a place.

Such a file has no root (each line is a document of its own: engine/spec/document.py), so
hover and completion, which walk from the root down to the cursor, found nothing in it.
Here the row on the cursor's line stands as `scenarios[0]` of a dataset with that one
scenario: every request then reads it as it reads a scenario of a `.dataset.json`.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from collections.abc import Sequence

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.kinds import is_jsonl
from checkspec.engine.spec.problems import Position, Range
from checkspec.engine.spec.scenario_analysis import ScenarioEntry
from checkspec.engine.spec.tree import Node, Source


def scenarios_near(document: Document, line: int) -> Sequence[ScenarioEntry]:
    """The scenarios that may hold `line`: in a JSON Lines dataset (a row a line, in
    order) the row on that line alone, found by bisection (none when no row is read
    there); elsewhere all of them. A request on a 32,000-row dataset asked every row."""
    entries = document.scenarios
    if document.source.root is not None or not is_jsonl(document.path):
        return entries
    at = bisect_left(entries, line, key=lambda entry: entry.node.line)
    return entries[at : at + 1] if at < len(entries) and entries[at].node.line == line else []


def row_document(document: Document, line: int) -> Document:
    """`document` itself, or, in a JSON Lines dataset, a copy of it whose source is the
    row on `line` under a root of its own (the document when no row is read there)."""
    source = document.source
    if source.root is not None or not is_jsonl(document.path):
        return document
    found = scenarios_near(document, line)
    if not found:
        return document
    row = found[0].node
    place = row.range
    # The key `scenarios` is nowhere in the text: a range before the line's first
    # character, which no cursor can hit.
    nowhere = Position(place.start.line, -1)
    key = Node("scalar", "scenarios", Range(nowhere, nowhere))
    items = Node("sequence", [row.value], place, items=[row])
    root = Node("mapping", {"scenarios": items.value}, place, entries=[(key, items)])
    return dataclasses.replace(document, source=Source(root, [], source.text))
