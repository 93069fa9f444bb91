"""Curation code actions on a selection of scenarios, and the edits of each: tags added
or removed, status, a comment, delete, move to another file. The edits come from the
engine's curation operations (engine/curate/operations.py), the same the CLI writes;
here they stay edits (code-point ranges per file) the editor applies and can undo."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checkspec.engine.curate.edits import TextEdit as OffsetEdit
from checkspec.engine.curate.files import CurateError, Item, SpecFile, parse_spec
from checkspec.engine.curate.operations import Plan, plan
from checkspec.engine.curate.record import Recording, record_into
from checkspec.engine.curate.select import Selected
from checkspec.engine.spec.lines import index_of
from checkspec.engine.spec.problems import Range, TextEdit

from .command_names import ASK_COMMENT, PICK_FILE, PICK_TAG, RECORD_OUTPUTS

ReadText = Callable[[Path], str | None]
MAX_TAG_ACTIONS = 5


@dataclass
class FileChange:
    """One file's part of a curation: edits on its text, or made or deleted whole."""

    path: Path
    edits: list[TextEdit] = field(default_factory=list)
    create: bool = False
    delete: bool = False


@dataclass
class CurationAction:
    title: str
    changes: list[FileChange] | None = None  # the edit, when it needs nothing more
    command: str | None = None  # else the editor's command that asks what it needs
    arguments: list[object] = field(default_factory=list)
    server_command: bool = False  # `command` is the server's (any client can run it)


def selected(text: str, path: Path, rng: Range) -> tuple[SpecFile, list[Item]] | None:
    """The scenarios whose first line the range covers (or the cursor is on)."""
    try:
        spec = parse_spec(path, b"", text)
    except CurateError:
        return None
    first, last = rng.start.line, rng.end.line
    if rng.end.character == 0 and last > first:  # a selection of whole lines
        last -= 1
    # A scenario is chosen by its first line (where its `- name:` is): a cursor or a
    # problem inside one of its checks is about that check, not about the scenario.
    items = [i for i in spec.items if first <= i.line <= last]
    return (spec, items) if items else None


def _plural(count: int) -> str:
    return f"{count} scenario" if count == 1 else f"{count} scenarios"


RECORD_TITLE = "Record outputs from the target"


def curation_actions(
    text: str,
    path: Path,
    rng: Range,
    uri: str,
    tags: Callable[[], Mapping[str, int]],
    recordable: Callable[[Sequence[int]], list[int]] = lambda indexes: [],
) -> list[CurationAction]:
    """`recordable`: which of these scenario indexes run against a target (the record
    action runs those and writes what they answered)."""
    found = selected(text, path, rng)
    if found is None:
        return _file_actions(text, path, rng, uri, recordable)
    spec, items = found
    indexes = [i.index for i in items]
    group = [Selected(spec, items)]
    many = _plural(len(items))
    actions: list[CurationAction] = []

    def edit(title: str, operation: str, values: Sequence[str] = ()) -> None:
        try:
            changes = _changes(spec, plan(operation, group, values))
        except CurateError:
            return
        if changes:
            actions.append(CurationAction(title, changes))

    actions.append(CurationAction("Add tag…", command=PICK_TAG, arguments=[uri, indexes]))
    counts = tags()
    present = {t for i in items for t in i.tags}
    popular = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
    for tag, _ in [p for p in popular if any(p[0] not in i.tags for i in items)][:MAX_TAG_ACTIONS]:
        missing = sum(1 for i in items if tag not in i.tags)
        edit(f"Add tag '{tag}' to {_plural(missing)}", "tag add", [tag])
    for tag in sorted(present):
        having = sum(1 for i in items if tag in i.tags)
        edit(f"Remove tag '{tag}' from {_plural(having)}", "tag remove", [tag])
    if any(i.status != "draft" for i in items):
        edit(f"Mark {many} draft", "status draft")
    if any(i.status == "draft" for i in items):
        edit(f"Mark {many} active", "status active")
    actions.append(CurationAction("Add comment…", command=ASK_COMMENT, arguments=[uri, indexes]))
    actions.append(
        CurationAction(f"Move {many} to file…", command=PICK_FILE, arguments=[uri, indexes])
    )
    edit(f"Delete {many}", "delete")
    targeted = recordable(indexes)
    if targeted:
        title = RECORD_TITLE if len(items) == 1 else f"{RECORD_TITLE} ({_plural(len(targeted))})"
        actions.append(_record_action(title, uri, targeted))
    return actions


def _record_action(title: str, uri: str, indexes: list[int]) -> CurationAction:
    return CurationAction(
        title, command=RECORD_OUTPUTS, arguments=[uri, indexes], server_command=True
    )


def _file_actions(
    text: str,
    path: Path,
    rng: Range,
    uri: str,
    recordable: Callable[[Sequence[int]], list[int]],
) -> list[CurationAction]:
    """On the file's head (the lines above its first scenario): record the whole file."""
    try:
        spec = parse_spec(path, b"", text)
    except CurateError:
        return []
    if not spec.items or rng.start.line >= spec.items[0].line:
        return []
    targeted = recordable([i.index for i in spec.items])
    if not targeted:
        return []
    return [_record_action(f"{RECORD_TITLE} ({_plural(len(targeted))} of the file)", uri, targeted)]


def recording_edit(
    text: str, path: Path, runs: Sequence[tuple[int, str, Sequence[Any]]]
) -> tuple[list[FileChange], Recording]:
    """The edit writing live outputs into the file as the editor has it (`text`): each
    run is (scenario index in that text, its name for messages, each interaction's
    outputs in order); the same engine code as `checkspec run --record`
    (engine/curate/record.py) makes it."""
    spec = parse_spec(path, text.encode("utf-8"), text)
    by_index = {i.index: i for i in spec.items}
    done = Recording()
    found = []
    for index, name, outputs in runs:
        item = by_index.get(index)  # the text is the one the run was made from
        if item is None:
            done.skipped.append(f"{name}: no scenario #{index} in the file (changed?)")
            continue
        found.append((item, outputs, name))
    editor = record_into(spec, found, done, write=True)
    changes = [FileChange(path, _located(spec.text, editor.edits))] if editor.edits else []
    return changes, done


def _located(text: str, edits: Sequence[OffsetEdit]) -> list[TextEdit]:
    lines = index_of(text)
    return [TextEdit(Range(lines.position(e.start), lines.position(e.end)), e.new) for e in edits]


def curation_edit(
    text: str,
    path: Path,
    indexes: Sequence[int],
    operation: str,
    value: str | None,
    read: ReadText | None = None,
) -> list[FileChange]:
    """The edit of one operation on these scenarios of the file (CurateError saying why
    it cannot be made). `read`: how another file is read (the editor's text of an open
    one, unsaved edits included), for the file a move goes to; the disk's without it."""
    spec = parse_spec(path, b"", text)
    wanted = set(indexes)
    items = [i for i in spec.items if i.index in wanted]
    if not items:
        raise CurateError("no such scenario in the file (it changed?)")
    group = [Selected(spec, items)]
    if operation in ("move", "copy"):
        if not value:
            raise CurateError("a move needs the file to move to")
        target = Path(value)
        return _changes(spec, plan(operation, group, to=target, target=_read_target(target, read)))
    values = [value] if value is not None else []
    return _changes(spec, plan(operation, group, values))


def _read_target(path: Path, read: ReadText | None) -> SpecFile | None:
    """The file a move goes to as the editor has it, or None (read from disk, or made)."""
    if read is None or not path.exists():
        return None
    text = read(path)
    return None if text is None else parse_spec(path, text.encode("utf-8"), text)


def _changes(spec: SpecFile, done: Plan) -> list[FileChange]:
    changes = []
    for part in done.files:
        if part.deleted:
            changes.append(FileChange(part.path, delete=True))
            continue
        old = part.spec.text if part.spec is not None else ""
        changes.append(FileChange(part.path, _located(old, part.edits), create=part.spec is None))
    return changes
