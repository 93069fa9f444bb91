"""Curation's refusal, apart from files.py so that the selection language
(select.py), which every command's selectors go through (`checkspec validate` too), raises
it without loading how curation reads and edits spec files."""

from __future__ import annotations


class CurateError(Exception):
    """A refusal: the command exits 2 with this message and changes nothing."""
