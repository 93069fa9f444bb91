"""Curation code actions on a selection of scenarios, and the edits of each: tags added
or removed, status, a comment, delete, move to another file. The edits come from the
engine's curation operations (engine/curate/operations.py), the same the CLI writes;
here they stay edits (code-point ranges per file) the editor applies and can undo."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from checkspec.engine.curate.files import CurateError, Item, SpecFile, parse_spec
from checkspec.engine.curate.operations import Plan, plan
from checkspec.engine.curate.select import Selected
from checkspec.engine.spec.lines import index_of
from checkspec.engine.spec.problems import Range, TextEdit

from .command_names import ASK_COMMENT, PICK_FILE, PICK_TAG

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


def curation_actions(
    text: str, path: Path, rng: Range, uri: str, tags: Callable[[], Mapping[str, int]]
) -> list[CurationAction]:
    found = selected(text, path, rng)
    if found is None:
        return []
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
    return actions


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
        lines = index_of(old)
        edits = [
            TextEdit(Range(lines.position(e.start), lines.position(e.end)), e.new)
            for e in part.edits
        ]
        changes.append(FileChange(part.path, edits, create=part.spec is None))
    return changes
