"""Moving and copying scenarios into another suite or dataset (made when missing).

Between YAML block lists an item's lines travel as they are (comments too), indented
for their new list; into JSON or JSON Lines an item is written from its value; from JSON
into YAML it is written as a flow mapping (JSON is YAML). A suite's scenario and a
dataset's row hold different fields: a move between them is refused.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..spec.kinds import FileKind, is_json, is_jsonl, kind_from_name
from .edits import Editor, json_value, yaml_scalar
from .files import CurateError, Item, SpecFile

_JSON_SAFE = (str, int, float, bool, type(None))


def item_value(spec: SpecFile, item: Item) -> Any:
    value = item.value
    _check_json(value, spec, item)
    return value


def _check_json(value: Any, spec: SpecFile, item: Item) -> None:
    stack = [value]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                break
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif not isinstance(value, _JSON_SAFE) or value != value:
            break
    else:
        return
    raise CurateError(
        f"{spec.path}:{item.line + 1}: {item.name!r} holds values JSON cannot (a "
        "non-text key, NaN): it can only move to a YAML file"
    )


def target_kind(path: Path, existing: SpecFile | None) -> FileKind:
    kind = existing.kind if existing is not None else kind_from_name(path)
    if kind not in (FileKind.SUITE, FileKind.DATASET):
        raise CurateError(
            f"{path}: a move goes into a suite or a dataset (*.suite.yaml|yml|json, "
            "*.dataset.yaml|yml|json|jsonl)"
        )
    return kind


def source_kind(spec: SpecFile) -> FileKind:
    # A scenario file holds one suite scenario.
    return FileKind.SUITE if spec.kind is FileKind.SCENARIO else spec.kind


def item_lines(spec: SpecFile, item: Item, prefix: str, eol: str) -> str:
    """A YAML block item of `spec` as lines for a list whose dashes sit at `prefix`."""
    editor = Editor(spec)
    seq = spec.scenarios_node
    if spec.kind is not FileKind.SCENARIO and seq is not None and editor.is_flow(seq):
        # An item of a flow list shares its lines with the others: its value, as flow.
        return f"{prefix}- {json_value(item_value(spec, item))}{eol}"
    first, last = item.line, editor.last_line(item.node)
    if spec.kind is not FileKind.SCENARIO:
        first = editor.dash_line(item.node)
    texts = [editor.line_text(n) for n in range(first, last + 1)]
    if spec.kind is FileKind.SCENARIO:  # a whole file: its mapping becomes an item
        texts = [line for line in texts if not line.startswith("$schema")]
        shaped = [
            ("- " if n == 0 else "  ") + line if line.strip() else line
            for n, line in enumerate(texts)
        ]
    else:
        own = editor.dash_prefix(item.node)
        shaped = [prefix + line[len(own) :] if line.startswith(own) else line for line in texts]
    return "".join(line + eol for line in shaped)


def new_file(path: Path, kind: FileKind, blocks: list[str], values: list[Any]) -> str:
    """The text of a new suite or dataset holding the moved scenarios."""
    name = path.name.split(".")[0]
    if is_jsonl(path):
        return "".join(json_value(v) + "\n" for v in values)
    if is_json(path):
        return json.dumps({"name": name, "scenarios": values}, ensure_ascii=False, indent=2) + "\n"
    return f"name: {yaml_scalar(name)}\nscenarios:\n" + "".join(blocks)


def append_scenarios(target: SpecFile, moving: Sequence[tuple[SpecFile, Item]]) -> Editor:
    """The edits adding the scenarios at the end of the target's list."""
    editor = Editor(target)
    if target.format == "jsonl":
        text = target.text
        lead = "" if not text or text.endswith(("\n", "\r")) else target.eol
        body = "".join(json_value(item_value(s, i)) + target.eol for s, i in moving)
        editor.add(len(text), len(text), lead + body)
        return editor
    seq = target.scenarios_node
    if seq is None or seq.kind != "sequence" or target.root is None:
        raise CurateError(f"{target.path}: has no list of scenarios to add to")
    if target.format == "json" or editor.is_flow(seq) or any(s.format != "yaml" for s, _ in moving):
        if target.format == "yaml" and not editor.is_flow(seq):
            # JSON items into a block list: flow mappings on their own lines
            prefix = editor.dash_prefix(seq.items[-1]) if seq.items else ""
            parts = []
            for spec, item in moving:
                if spec.format == "yaml":
                    parts.append(item_lines(spec, item, prefix, target.eol))
                else:
                    parts.append(f"{prefix}- {json_value(item_value(spec, item))}{target.eol}")
            at, first = editor.after_line(editor.last_line(seq.items[-1]))
            editor.add(at, at, first + "".join(parts))
            return editor
        values = [item_value(spec, item) for spec, item in moving]
        if target.format == "yaml":  # a flow list in YAML
            editor.append_items(target.root, "scenarios", values)
        else:
            close = editor.end(seq) - 1
            rendered = [json_value(v) for v in values]
            if seq.items:
                last = seq.items[-1]
                sep = f",{target.eol}{editor.indent_of(last)}" if last.line != seq.line else ", "
                editor.add(editor.end(last), editor.end(last), "".join(sep + r for r in rendered))
            else:
                editor.add(close, close, ", ".join(rendered))
        return editor
    if not seq.items:
        raise CurateError(f"{target.path}: has no list of scenarios to add to")
    prefix = editor.dash_prefix(seq.items[-1])
    at, first = editor.after_line(editor.last_line(seq.items[-1]))
    body = "".join(item_lines(spec, item, prefix, target.eol) for spec, item in moving)
    editor.add(at, at, first + body)
    return editor
