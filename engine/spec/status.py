"""A scenario's review status (the Hub's active/draft): drafts are not run by default.

`status: draft` is written on generated scenarios (`checkspec generate`); a reviewer sets
it to `active` (or removes it). Read from the scenario's node, so it holds for every file
kind without the runnable form being built.
"""

from __future__ import annotations

from typing import Any

from .json_rows import folded_key

DRAFT, ACTIVE = "draft", "active"


def is_draft(entry: Any) -> bool:
    """Whether a ScenarioEntry is marked `status: draft`."""
    node = getattr(entry, "node", None)
    if node is None:
        return False
    folded, status = folded_key(node, "status")  # a JSON Lines row, its nodes let go
    if folded:
        return status == DRAFT
    if getattr(node, "kind", None) != "mapping":
        return False
    status = node.get("status")
    return status is not None and status.value == DRAFT
