"""The editor's text changes applied to a document's `Editing`: one function, used where
a document is edited on the loop (documents.py) and in the worker thread of big ones
(background.py), which both import it (neither imports the other for it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from .convert import PositionCodec

if TYPE_CHECKING:
    from checkspec.engine.spec.incremental import Editing


def apply_changes(
    editing: Editing, changes: Sequence[types.TextDocumentContentChangeEvent], encoding: str
) -> None:
    """Apply the editor's changes, in order (a range and its text, or the whole text)."""
    for change in changes:
        if isinstance(change, types.TextDocumentContentChangePartial):
            rng = PositionCodec(editing.text, encoding, editing.lines).from_range(change.range)
            start, end = editing.lines.offset(rng.start), editing.lines.offset(rng.end)
            editing.replace(start, max(start, end), change.text)
        else:
            editing.set_text(change.text)
