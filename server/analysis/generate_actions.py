"""Generation in the editor, pure parts: the command line a `checkspec.generate` request
stands for, and the code actions of dataset files ("Generate N more like these", "Mark
reviewed").

The server never generates in its own process: the request checked here goes to a worker
of its pool (server/lsp/generate.py, engine/runs/generation.py), so a model call, a hang or
a crash stays out of the editor's server. `command_line` also says what `checkspec
generate` command the request stands for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

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


def as_path(value: str) -> str:
    """A file: URI as a path; a path as it is."""
    if value.startswith("file:"):
        return unquote(urlparse(value).path)
    return value


def command_line(request: Mapping[str, Any]) -> tuple[list[str], str] | str:
    """(`checkspec generate` arguments, output path) for a request, or what is wrong with it."""
    if not isinstance(request, Mapping):
        return "checkspec.generate takes one object: {persona|preset|docs|like, output, ...}"
    args: list[str] = []
    voices = 0  # a persona or a preset: alone, or the voice of the document questions
    for key, flag in (("persona", "--persona"), ("preset", "--preset")):
        value = request.get(key)
        if isinstance(value, str) and value.strip():
            args += [flag, value]
            voices += 1
    sources = 0
    docs = request.get("docs")
    if isinstance(docs, str):
        docs = [docs]
    if isinstance(docs, list) and docs:
        if not all(isinstance(d, str) and d for d in docs):
            return "docs must be a list of paths"
        args += ["--from-docs", *(as_path(d) for d in docs)]
        sources += 1
    like = request.get("like")
    if isinstance(like, str) and like:
        args += ["--like", as_path(like)]
        sources += 1
    if voices > 1 or sources > 1 or (like and voices) or (voices + sources == 0):
        return "give one of persona, preset, docs or like (docs may take a persona or preset)"
    exclude = request.get("exclude") or []
    if isinstance(exclude, str):
        exclude = [exclude]
    if not isinstance(exclude, list) or not all(isinstance(g, str) and g for g in exclude):
        return "exclude must be a list of globs"
    for glob in exclude:
        args += ["--exclude", glob]
    output = request.get("output")
    if not isinstance(output, str) or not output:
        return "output (the dataset file to write) is required"
    output = as_path(output)
    args += ["--output", output]
    for key, flag in (("count", "--count"), ("turns", "--turns"), ("seed", "--seed")):
        value = request.get(key)
        if value is not None:
            if not isinstance(value, int) or isinstance(value, bool):
                return f"{key} must be a whole number"
            args += [flag, str(value)]
    topics = request.get("topics") or []
    if isinstance(topics, str):
        topics = [topics]
    for topic in topics:
        if not isinstance(topic, str):
            return "topics must be a list of names"
        args += ["--topic", topic]
    types = request.get("types")
    if types:
        args += ["--types", ",".join(types) if isinstance(types, list) else str(types)]
    for key, flag in (
        ("append", "--append"),
        ("force", "--force"),
        ("simulate", "--simulate"),
        ("agentDescription", "--agent-description"),
        ("model", "--model"),
    ):
        value = request.get(key)
        if value is True:
            args.append(flag)
        elif isinstance(value, str) and value:
            args += [flag, value]
    return args, output


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
