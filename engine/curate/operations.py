"""The curation operations, once for the CLI and the editor: each gives, per file, the
text edits to make (on the text as read), the new text, or that the file is created or
deleted. The CLI writes them (commit.py); the language server sends them as a
WorkspaceEdit the editor can undo."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..core.gcpause import gc_paused
from ..spec.kinds import FileKind, is_json, is_jsonl
from . import edits, move
from .files import CurateError, Item, SpecFile, read_spec
from .select import Selected

OPERATIONS = (
    "tag add",
    "tag remove",
    "checks enable",
    "checks disable",
    "status active",
    "status draft",
    "comment",
    "delete",
    "move",
    "copy",
)


@dataclass
class FilePlan:
    """One file's part: `spec` is None for a new file; `new` None for a deleted one."""

    path: Path
    spec: SpecFile | None
    new: str | None
    edits: list[edits.TextEdit] = field(default_factory=list)

    @property
    def created(self) -> bool:
        return self.spec is None

    @property
    def deleted(self) -> bool:
        return self.new is None


@dataclass
class Plan:
    files: list[FilePlan]
    changed: int  # scenarios (or checks) changed


def now_stamp() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def plan(
    operation: str,
    chosen: Sequence[Selected],
    values: Sequence[str] = (),
    *,
    author: str | None = None,
    to: Path | None = None,
    target: SpecFile | None = None,
) -> Plan:
    """The edits of `operation` (one of OPERATIONS) on the chosen scenarios.

    `values`: the tags, check identifiers or the comment's text; `to`: the file a move or
    copy goes to (`target`: that file as read, when it exists and is already read).
    """
    if operation in ("move", "copy"):
        if to is None:
            raise CurateError("a move needs the file to move to")
        return _move(chosen, to, copy=operation == "copy", target=target)
    if operation in ("checks enable", "checks disable"):
        _known_checks(chosen, values)
    files: list[FilePlan] = []
    changed = 0
    stamp = now_stamp()
    for group in chosen:
        spec = group.spec
        if operation == "delete":
            if spec.kind is FileKind.SCENARIO:
                files.append(FilePlan(spec.path, spec, None))
                changed += 1
                continue
            editor = edits.Editor(spec)
            edits.delete_items(editor, group.items)
            changed += len(group.items)
        else:
            editor = edits.Editor(spec)
            with gc_paused():  # a tree a row, each let go once its edits are made
                for item in group.items:
                    changed += _one(operation, editor, item, values, author, stamp)
                    item.release()
        if editor.edits:
            files.append(FilePlan(spec.path, spec, editor.result(), list(editor.edits)))
    return Plan(files, changed)


def _known_checks(chosen: Sequence[Selected], checks: Sequence[str]) -> None:
    """Each check named is a kind or name of a check of one of the chosen scenarios
    (else CurateError with the nearest ones: a typo must not pass as "nothing to do")."""
    known: dict[str, None] = {}
    for group in chosen:
        for item in group.items:
            for _, kind, name in edits.check_nodes(item):
                known.update({k: None for k in (kind, name) if k})
            item.release()
    for check in checks:
        if check in known:
            continue
        near = difflib.get_close_matches(check, list(known), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""
        first = next((g for g in chosen if g.items), None)
        where = f"{first.spec.path}:{first.items[0].line + 1}:1: " if first is not None else ""
        raise CurateError(
            f"{where}no check {check!r} in the chosen scenario(s) "
            f"(a check is named by its kind or its name){hint}"
        )


def _one(
    operation: str,
    editor: edits.Editor,
    item: Item,
    values: Sequence[str],
    author: str | None,
    stamp: str,
) -> int:
    if operation == "tag add":
        return int(edits.add_tags(editor, item, values))
    if operation == "tag remove":
        return int(edits.remove_tags(editor, item, values))
    if operation in ("checks enable", "checks disable"):
        return edits.set_checks_enabled(editor, item, values, operation == "checks enable")
    if operation in ("status active", "status draft"):
        return int(edits.set_status(editor, item, operation.split()[1]))
    if operation == "comment":
        if not values or not values[0].strip():
            raise CurateError("a comment needs its text")
        comment = {"content": values[0]}
        if author:
            comment["author"] = author
        comment["created"] = stamp
        return int(edits.add_comment(editor, item, comment))
    raise CurateError(f"unknown operation {operation!r}")


def _move(chosen: Sequence[Selected], to: Path, *, copy: bool, target: SpecFile | None) -> Plan:
    existing = target if target is not None else read_spec(to) if to.exists() else None
    kind = move.target_kind(to, existing)
    moving = [(group.spec, item) for group in chosen for item in group.items]
    for spec, item in moving:
        if move.source_kind(spec) is not kind:
            raise CurateError(
                f"{spec.path}:{item.line + 1}: {item.name!r} is a {spec.kind.value} scenario; "
                f"{to} is a {kind.value}: the tool does not convert between them (a suite's "
                "scenarios have steps, a dataset's rows interactions)"
            )
        if spec.path.resolve() == to.resolve():
            raise CurateError(f"{spec.path}: the scenarios are already in {to}")
    files: list[FilePlan] = []
    if existing is None:
        blocks, values = [], []
        for spec, item in moving:
            if is_json(to) or is_jsonl(to) or spec.format != "yaml":
                values.append(move.item_value(spec, item))
                blocks.append(f"- {edits.json_value(values[-1])}\n")
            else:
                blocks.append(move.item_lines(spec, item, "", "\n"))
        text = move.new_file(to, kind, blocks, values)
        files.append(FilePlan(to, None, text, [edits.TextEdit(0, 0, text)]))
    else:
        editor = move.append_scenarios(existing, moving)
        files.append(FilePlan(existing.path, existing, editor.result(), list(editor.edits)))
    if not copy:
        for group in chosen:
            spec = group.spec
            if spec.kind is FileKind.SCENARIO:
                files.append(FilePlan(spec.path, spec, None))
                continue
            editor = edits.Editor(spec)
            edits.delete_items(editor, group.items)
            files.append(FilePlan(spec.path, spec, editor.result(), list(editor.edits)))
    return Plan(files, len(moving))


def duplicate_names(chosen: Sequence[Selected], to: Path) -> list[str]:
    """Names the moved scenarios share with scenarios already in `to`."""
    if not to.exists():
        return []
    try:
        names = {i.name for i in read_spec(to).items}
    except CurateError:
        return []
    return sorted({i.name for g in chosen for i in g.items if i.named and i.name in names})
