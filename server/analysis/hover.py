"""Hover: what a check kind, a parameter or a `trace.` JSONPath means here.

A JSONPath is also resolved on the scenario's recorded interactions when a replay would
use exactly those (no target, every answer recorded): pure data, nothing is run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from checkspec.engine.core.jsonpath import JSONPathError, NoMatch, compile_path, resolve
from checkspec.engine.spec.document import Document
from checkspec.engine.spec.kinds import FileKind
from checkspec.engine.spec.problems import Position, Range
from checkspec.engine.spec.tree import Key, Node
from checkspec.engine.spec.workspace import Workspace

if TYPE_CHECKING:
    from checkspec.engine.settings import Resolved

from .context import frames_along
from .docs import check_markdown, field_markdown
from .last_run import LastRun, current_runs
from .recorded import recorded_at
from .rows import row_document
from .schema import MappingShape, check_fields, named_class, shape_at
from .trace_paths import keys_at, parse_steps, walk
from .transcript import last_check_markdown, transcript_markdown

_MAX_SHOWN = 1500


@dataclass(frozen=True)
class HoverInfo:
    markdown: str
    range: Range


def hover(
    document: Document,
    position: Position,
    workspace: Workspace | None = None,
    settings: Resolved | None = None,
) -> HoverInfo | None:
    """What is under `position`; on a setting of checkspec.yaml, with `settings` (resolved
    by the caller with its environment and editor settings), its effective value and
    where that comes from."""
    document = row_document(document, position.line)  # a JSON Lines row: as a scenario
    source = document.source
    root = source.root
    if root is None or document.kind is None:
        return None
    path = source.path_at(position.line, position.character)
    node = source.node_at(position.line, position.character)
    if not path or node is None:
        return None
    parent = root.find(path[:-1])
    if parent is None:
        return None
    custom = workspace.custom_checks if workspace is not None else {}
    if parent.kind == "sequence":  # a list item: explain the list's key
        if len(path) < 2 or node.kind != "scalar":
            return None
        shape = shape_at(document.kind, frames_along(root, path[:-2]), custom)
        doc = shape.field_for(path[-2]) if shape is not None else None
        return HoverInfo(field_markdown(doc, shape.title), node.range) if doc and shape else None
    shape = shape_at(document.kind, frames_along(root, path[:-1]), custom)
    if shape is None:
        return None
    key = path[-1]
    value = parent.get(key)
    if key == shape.head and shape.family is not None and value is not None:
        text = _kind_markdown(document, shape, key, value.value, workspace)
        return HoverInfo(text, node.range) if text else None
    doc = shape.field_for(key)
    if doc is None:
        return None
    text = field_markdown(doc, shape.title)
    if settings is not None and document.kind is FileKind.CONFIG and len(path) == 1:
        effective = effective_markdown(doc.name, settings)
        if effective:
            text = f"{effective}\n\n---\n\n{text}"
    if key == "name" and "comments" in shape.fields:
        comments = comments_markdown(parent.get("comments"))
        if comments:
            text = f"{comments}\n\n---\n\n{text}"
    on_value = node is value and node.kind == "scalar"
    if on_value and doc.jsonpath and isinstance(node.value, str):
        resolved = _resolution(document, path, node.value, workspace)
        if resolved:
            text = f"{resolved}\n\n---\n\n{text}"
    return HoverInfo(text, node.range)


def comments_markdown(node: Node | None) -> str:
    """A scenario's review comments, newest last: who, when, what."""
    if node is None or node.kind != "sequence":
        return ""
    lines = []
    for item in node.items[:20]:
        value = item.value if isinstance(item.value, dict) else {}
        content = value.get("content")
        if not isinstance(content, str):
            continue
        who = " · ".join(str(value[k]) for k in ("author", "created") if value.get(k))
        quoted = "\n".join(f"> {line}" for line in _escape(content).splitlines() or [""])
        lines.append(f"{quoted}\n>\n> — {_escape(who)}" if who else quoted)
    if not lines:
        return ""
    more = len(node.items) - 20
    tail = f"\n\n… and {more} more" if more > 0 else ""
    return f"**Comments** ({len(node.items)})\n\n" + "\n\n".join(lines) + tail


def _escape(text: str) -> str:
    return "".join("\\" + c if c in "\\`*_[]<>#|" else c for c in text)


def last_run_hover(
    document: Document, text: str, runs: dict[int, LastRun], position: Position
) -> HoverInfo | None:
    """On a scenario's name, the transcript of its last run (while its text is unchanged)."""
    for entry, run in current_runs(document, text, runs):
        if entry.head.contains(position):
            return HoverInfo(transcript_markdown(run.summary), entry.head)
    return None


def with_last_check(
    found: HoverInfo | None,
    document: Document,
    text: str,
    runs: dict[int, LastRun],
    position: Position,
) -> HoverInfo | None:
    """On a check's `kind:` after a run (while its scenario's text is unchanged): what the
    check found then (its verdict, and the values it read: what capture recorded, say)
    above what `found` says."""
    for entry, run in current_runs(document, text, runs):
        for check in entry.checks:
            if not check.head.contains(position):
                continue
            for shown in run.summary.get("checks", []):
                if (shown.get("step"), shown.get("index")) == (check.step, check.index):
                    above = last_check_markdown(shown)
                    if found is None:
                        return HoverInfo(above, check.head)
                    return HoverInfo(f"{above}\n\n---\n\n{found.markdown}", found.range)
    return found


def _kind_markdown(
    document: Document,
    shape: MappingShape,
    key: Key,
    name: Any,
    workspace: Workspace | None,
) -> str | None:
    assert shape.family is not None
    custom = workspace.custom_checks if workspace is not None else {}
    cls, named = named_class(shape.family, name, custom)
    if cls is None:
        return None
    if shape.check is cls:
        fields = shape.fields  # as the shape documents them here (dataset defaults...)
    else:
        top_level_dataset = document.kind is FileKind.DATASET and key == "identifier"
        fields = check_fields(cls, dataset=top_level_dataset)
    return check_markdown(str(name), cls, fields=fields, custom=named)


def _resolution(
    document: Document, path: list[Key], selector: str, workspace: Workspace | None
) -> str | None:
    """What `selector` gives on the recorded trace of the step it is written in."""
    recorded = recorded_at(document, path, workspace)
    if recorded is None or recorded.step is None:
        return None
    where = f"step {recorded.step + 1}"
    try:
        compile_path(selector)
    except JSONPathError as exc:
        return f"Not a valid JSONPath: {exc}"
    why = recorded.why_not_replayable()
    if why is not None:
        return f"`{selector}` is resolved when the scenario runs: {why}."
    trace = recorded.trace()
    try:
        value = resolve(trace, selector)
    except Exception as exc:  # a path jsonpath-ng cannot evaluate on this data
        return f"`{selector}` cannot be resolved on the recorded trace: {exc}"
    if isinstance(value, NoMatch):
        return f"`{selector}` matches nothing in the recorded trace of {where}." + _nearest(
            trace.to_data(), selector
        )
    return f"`{selector}` on the recorded trace of {where} (replayed):\n\n```json\n{_shown(value)}\n```"


def _nearest(data: Any, selector: str) -> str:
    """Where the path stops matching, and the keys that are there instead."""
    steps = parse_steps(selector)
    if not steps:
        return ""
    for length in range(len(steps) - 1, 0, -1):
        value = walk(data, steps[:length])
        keys = keys_at(value)
        if keys:
            shown = "trace" + "".join(
                f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps[:length]
            )
            listed = ", ".join(f"`{k}`" for k in keys[:20])
            return f" `{shown}` has: {listed}."
    return ""


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "\n…"


def effective_markdown(name: str, settings: Resolved) -> str | None:
    """`model` -> its effective value and origin (`checkspec.yaml:3`, `CHECKSPEC_MODEL`,
    `editor: checkspec.model`, `default`), as `checkspec settings` shows them."""
    origin = settings.origins.get(name)
    if origin is None:
        return None
    value = getattr(settings.settings, name)
    if value is None:
        shown = "(unset)"
    elif isinstance(value, bool):
        shown = "true" if value else "false"
    elif isinstance(value, tuple):
        shown = json.dumps(value)
    else:
        shown = str(value)
    return f"**Effective value:** `{shown}` (from `{origin}`)"
