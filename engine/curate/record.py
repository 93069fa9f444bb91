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
from .selectors import split_selector


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
                after = key[:-1] if key == "outputs" else "input"
                if not _set_in_block(editor, node, key, _plain(live), after):
                    editor.set_key(node, key, _plain(live), after=after)
        done.recorded += 1
    return editor


def _set_in_block(editor: edits.Editor, mapping: Any, key: str, value: Any, after: str) -> bool:
    """Write `key: value` into a block mapping of a YAML file in block style (a mapping or
    a list on lines of their own, a multi-line string as a `|` block scalar), as the file
    around it is written; False when the value is written in flow style instead (JSON, a
    flow mapping, a value that is one short line anyway, or one a block cannot hold)."""
    if editor.json or editor.is_flow(mapping):
        return False
    block = block_lines(value, editor.quote)
    if block is None:
        return False
    found = mapping.get(key)
    if found is None:
        editor.insert_key(mapping, key, "", block="\n".join(block), after=after)
        return True
    key_node = mapping.key_node(key)
    colon = editor.text.find(":", editor.end(key_node))
    indent = editor.indent_of(key_node) + "  "
    body = editor.eol.join(indent + line if line else "" for line in block)
    empty = found.kind == "scalar" and found.value is None  # `key:` with nothing after it
    end = colon + 1 if empty else _content_end(editor, found)
    editor.add(colon + 1, end, editor.eol + body)
    return True


def block_lines(value: Any, quote: str = '"') -> list[str] | None:
    """`value` as the lines of a YAML block (indented under its key by the caller); None
    when it is better written on the key's line (a scalar of one line, an empty list or
    mapping) or a block cannot hold it as it is (the lines are read back to make sure)."""
    if isinstance(value, str):
        if "\n" not in value.rstrip("\n"):
            return None
    elif not isinstance(value, dict | list) or not value:
        return None
    lines = _block(value, quote)
    if lines is None:
        return None
    import yaml

    try:  # what a block reads back as must be the value itself
        back = yaml.safe_load("k:\n" + "".join(f"  {line}\n" for line in lines))
    except yaml.YAMLError:
        return None
    return lines if back == {"k": value} else None


def _block(value: Any, quote: str) -> list[str] | None:
    """The block lines of a value at indentation 0 (a scalar: one line, flow-safe)."""
    if isinstance(value, str) and "\n" in value.rstrip("\n"):
        return _literal(value)
    if isinstance(value, dict) and value:
        out: list[str] = []
        for key, item in value.items():
            name = edits.yaml_scalar(str(key), quote)
            inner = _nested(item, quote)
            if inner is None:
                out.append(f"{name}: {edits.yaml_flow(item, quote)}")
            elif inner[0].startswith("|"):
                out.append(f"{name}: {inner[0]}")
                out.extend(f"  {line}" if line else "" for line in inner[1:])
            else:
                out.append(f"{name}:")
                out.extend(f"  {line}" if line else "" for line in inner)
        return out
    if isinstance(value, list) and value:
        out = []
        for item in value:
            inner = _nested(item, quote)
            if inner is None:
                out.append(f"- {edits.yaml_flow(item, quote)}")
            else:  # the item's first line after its dash, the others under it
                out.append(f"- {inner[0]}")
                out.extend(f"  {line}" if line else "" for line in inner[1:])
        return out
    return None


def _nested(value: Any, quote: str) -> list[str] | None:
    """A value inside a block: its block lines, or None to write it in flow style."""
    if isinstance(value, dict | list) and value:
        return _block(value, quote)
    if isinstance(value, str) and "\n" in value.rstrip("\n"):
        return _literal(value)
    return None


def _literal(text: str) -> list[str] | None:
    """A `|` block scalar's header and lines (`|-` without a final line end, `|+` keeping
    more than one); None for text a block scalar cannot carry as is."""
    if not text.isprintable() and any(c not in "\n\t" and not c.isprintable() for c in text):
        return None
    if "\r" in text or text.startswith((" ", "\t", "\n")):
        return None
    body = text.rstrip("\n")
    ends = len(text) - len(body)
    header = "|-" if ends == 0 else "|" if ends == 1 else "|+"
    lines = body.split("\n")
    if header == "|+":
        lines.extend([""] * (ends - 1))
    return [header, *lines]


def _content_end(editor: edits.Editor, node: Any) -> int:
    """Where a value's own text ends: a block collection's at its last value's end, a
    block scalar's before its last line end (what comes after it stays)."""
    node = editor.innermost_last(node)
    end = editor.end(node)
    rng = node.range
    if rng.end.character == 0 and rng.end.line > rng.start.line:  # a block scalar's end
        end = editor.line_start(rng.end.line)
        while end > 0 and editor.text[end - 1] in "\r\n":
            end -= 1
    return end


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
