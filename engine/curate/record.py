"""Record mode and drift: what a target answered, written into the file it ran from
(`outputs:` of a scenario's interaction, `output:` of a dataset row), so a later run
without the target replays it; and, where the file already held an answer, what changed.

An interaction is matched to its place in the file by order: the n-th interaction of the
run is the n-th written in the scenario (`steps[].interacts[]`, or a row's
`interactions[]`). A scenario whose run made a different number of interactions (a
generator of inputs, a step that stopped the conversation) is not recorded, saying so.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import edits
from .commit import Change
from .files import CurateError, Item, SpecFile, read_spec
from .select import split_selector


@dataclass
class Ran:
    """One scenario's live run: where it is written and what each interaction answered."""

    path: Path
    identity: str  # FILE::NAME or FILE::#INDEX (engine/cli/execute.py)
    outputs: list[Any]
    live: bool  # a target ran (not a replay)


@dataclass
class Drift:
    path: Path
    name: str
    line: int  # 1-based, the recorded output's
    diff: str


@dataclass
class Recording:
    changes: list[Change] = field(default_factory=list)
    drifts: list[Drift] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # why a scenario was not recorded
    recorded: int = 0


def places(spec: SpecFile, item: Item) -> list[tuple[Any, str]]:
    """Each interaction's mapping node in the file and the key its answer goes under."""
    node = item.node
    if node.kind != "mapping":
        return []
    found: list[tuple[Any, str]] = []
    rows = node.get("interactions")
    if rows is not None and rows.kind == "sequence":
        return [(row, "output") for row in rows.items if row.kind == "mapping"]
    steps = node.get("steps")
    for step in steps.items if steps is not None and steps.kind == "sequence" else ():
        interacts = step.get("interacts") if step.kind == "mapping" else None
        if interacts is None:
            continue
        items = interacts.items if interacts.kind == "sequence" else [interacts]
        found.extend((i, "outputs") for i in items if i.kind == "mapping")
    return found


def record(runs: Iterable[Ran], *, write: bool) -> Recording:
    """The edits recording the live outputs (when `write`) and the drifts found."""
    done = Recording()
    by_file: dict[Path, list[Ran]] = {}
    for ran in runs:
        if ran.live:
            by_file.setdefault(ran.path, []).append(ran)
    for path, ran_here in by_file.items():
        try:
            spec = read_spec(path)
        except CurateError as exc:
            done.skipped.append(str(exc))
            continue
        found: list[tuple[Item, Sequence[Any], str]] = []
        for ran in ran_here:
            item = _item_of(spec, ran.identity)
            if item is None:
                done.skipped.append(f"{ran.identity}: not found in {path} (changed?)")
                continue
            found.append((item, ran.outputs, ran.identity))
        editor = record_into(spec, found, done, write=write)
        if write and editor.edits:
            done.changes.append(Change(path, spec.data, editor.result().encode("utf-8")))
    return done


def record_into(
    spec: SpecFile,
    runs: Iterable[tuple[Item, Sequence[Any], str]],
    done: Recording,
    *,
    write: bool,
    editor: edits.Editor | None = None,
) -> edits.Editor:
    """Record into one file read for curation (from disk by `record`, from the editor's
    text by the language server): each (scenario, its live outputs in order, how it is
    named in messages). The drifts, skips and count go to `done`; the edits are the
    returned editor's (on `spec`'s text; `editor`'s, when given, next to its own), made
    only when `write`."""
    editor = edits.Editor(spec) if editor is None else editor
    for item, outputs, identity in runs:
        where = places(spec, item)
        if len(where) != len(outputs):
            done.skipped.append(
                f"{identity}: the run made {len(outputs)} interaction(s), the file "
                f"writes {len(where)}: not recorded"
            )
            continue
        for (node, key), live in zip(where, outputs, strict=True):
            before = node.get(key)
            if before is not None and _plain(before.value) != _plain(live):
                done.drifts.append(
                    Drift(spec.path, item.name, before.line + 1, _diff(before.value, live))
                )
            if write and (before is None or _plain(before.value) != _plain(live)):
                editor.set_key(
                    node, key, _plain(live), after=key[:-1] if key == "outputs" else "input"
                )
        done.recorded += 1
    return editor


def _item_of(spec: SpecFile, identity: str) -> Item | None:
    _, member = split_selector(identity)
    if member is None:
        return spec.items[0] if spec.items else None
    if member.startswith("#") and member[1:].isdigit():
        at = int(member[1:])
        return spec.items[at] if at < len(spec.items) else None
    return next((i for i in spec.items if i.named and i.name == member), None)


def _plain(value: Any) -> Any:
    """The value as JSON data (what a file can hold)."""
    try:
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return str(value)


def _diff(before: Any, after: Any, limit: int = 12) -> str:
    def lines(value: Any) -> list[str]:
        if isinstance(value, str):
            return value.splitlines() or [""]
        return json.dumps(_plain(value), indent=1, ensure_ascii=False, sort_keys=True).splitlines()

    shown = list(difflib.unified_diff(lines(before), lines(after), "recorded", "live", lineterm=""))
    if len(shown) > limit:
        shown = [*shown[:limit], f"… {len(shown) - limit} more line(s)"]
    return "\n".join(shown)


def drift_text(drifts: Sequence[Drift]) -> str:
    out = []
    for drift in drifts:
        out.append(f"{drift.path}:{drift.line}: drift in {drift.name!r}:")
        out.extend(f"    {line}" for line in drift.diff.splitlines())
    return "\n".join(out)
