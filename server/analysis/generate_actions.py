"""Generation in the editor, pure parts: the code actions of dataset files ("Generate N
more like these", "Mark reviewed").

A `checkspec.generate` request is checked by engine/generate/request.py's
`GenerationRequest.from_editor` (the value `checkspec generate` makes from its options
too) and goes to a worker of the server's pool (server/lsp/generate.py,
engine/runs/generation.py), so a model call, a hang or a crash stays out of the editor's
server.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checkspec.engine.catalog import FileKind
from checkspec.engine.spec.document import Document
from checkspec.engine.spec.problems import Range, TextEdit

MORE_LIKE_THESE = 5  # scenarios the "Generate N more like these" action asks for


@dataclass(frozen=True)
class GenerateAction:
    title: str
    arguments: dict[str, Any]  # the checkspec.generate request


@dataclass(frozen=True)
class ReviewAction:
    title: str
    edits: tuple[TextEdit, ...]


def generate_actions(document: Document) -> list[GenerateAction]:
    """On a dataset with scenarios: "Generate N more like these" (appended to it)."""
    if document.kind is not FileKind.DATASET or not document.scenarios:
        return []
    path = document.path
    return [
        GenerateAction(
            f"Generate {MORE_LIKE_THESE} more like these",
            {"like": path, "output": path, "append": True, "count": MORE_LIKE_THESE},
        )
    ]


def review_actions(document: Document, within: Range) -> list[ReviewAction]:
    """On a `status: draft` scenario the cursor is in: "Mark reviewed" (status: active);
    and, when the file holds several drafts, "Mark all N drafts reviewed"."""
    drafts: list[tuple[Range, TextEdit]] = []
    for entry in document.scenarios:
        node = entry.node
        if node.kind != "mapping":
            continue
        status = node.get("status")
        if status is not None and status.value == "draft":
            drafts.append((node.range, TextEdit(status.range, "active")))
    found = [
        ReviewAction("Mark reviewed (status: active)", (edit,))
        for where, edit in drafts
        if where.start <= within.end and within.start <= where.end
    ][:1]
    if len(drafts) > 1:
        edits = tuple(edit for _, edit in drafts)
        found.append(ReviewAction(f"Mark all {len(drafts)} drafts reviewed", edits))
    return found


def output_uri(path: str) -> str:
    return Path(path).resolve().as_uri()
