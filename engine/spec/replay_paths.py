"""`trace.` paths that point nowhere in the data a run would check.

When a scenario replays what it recorded (no target, every answer written down), a
selector such as `trace.last.outputs.answr` can be resolved before anything runs: if the
recorded outputs have no `answr` the run would end as ERROR "No value found", so the
analysis says so now, with the keys that are there, a did-you-mean and a fix. A dataset
whose outputs come from a target is checked against its `output_schema` instead (the
properties it declares), unless the schema allows other properties.

Pure data: nothing is run or imported. Only simple paths are read (`.name`, `['name']`,
`[0]`); anything fancier (filters, wildcards) is left to the run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from ..catalog import jsonpath_keys
from ..core.check import did_you_mean
from .locate import warning
from .problems import Position, Problem, Range, TextEdit
from .tree import Node

CODE = "unresolved-trace-path"
_SEGMENT = (  # compiled with the first selector read (_parse): a file may have none
    r"\.(?P<name>[A-Za-z_$][\w$-]*)|\[\s*'(?P<single>[^']*)'\s*\]|\[\s*\"(?P<double>[^\"]*)\"\s*\]"
    r"|\[\s*(?P<index>-?\d+)\s*\]"
)
_PLAIN = re.compile(r"[A-Za-z_][\w-]*")
_NESTED = ("check", "checks")
_MISSING = object()


@dataclass(frozen=True)
class _Segment:
    name: str | int
    start: int  # offset in the path text of the name itself
    end: int


class _Turn(NamedTuple):  # a tuple: one is made per interaction of every scenario
    outputs: Any  # _MISSING when not recorded
    spied: bool = False


def replay_path_problems(
    scenario: Node,
    target: str | None,
    *,
    dataset: bool = False,
    output_schema: Any = None,
    known: Callable[[int], tuple[str, ...] | None] | None = None,
) -> list[Problem]:
    """Warnings for the selectors of a scenario (or dataset record) that resolve to nothing.

    `known` gives, by `id` of a check's node, its selectors' paths when the caller has
    them already (`selector_paths`): a check whose paths all resolve is not walked again.
    """
    if scenario.kind != "mapping":
        return []
    steps = _items(scenario.get("interactions" if dataset else "steps"))
    turns: list[list[_Turn]] = [_dataset_turns(s) if dataset else _turns(s) for s in steps]
    problems: list[Problem] = []
    by_schema = dataset and isinstance(output_schema, dict)
    seen: list[_Turn] = []
    for index, step in enumerate(steps):
        seen += turns[index]
        replayed = target is None and bool(seen) and all(_usable(t) for t in seen)
        if not replayed and not by_schema:
            continue
        for check in _items(step.get("checks") if step.kind == "mapping" else None):
            paths = known(id(check)) if known is not None and replayed else None
            if paths is not None and not any(_missing(p, seen) for p in paths):
                continue
            found: list[tuple[str, Node]] = []
            _selectors(check, dataset, found)
            for path, node in found:
                problem = (
                    _against_recording(path, node, seen)
                    if replayed
                    else _against_schema(path, node, output_schema)
                )
                if problem is not None:
                    problems.append(problem)
    return problems


# Where the data comes from ------------------------------------------------------------------


def _turns(step: Node) -> list[_Turn]:
    found = []
    for item in _items(step.get("interacts") if step.kind == "mapping" else None):
        spec = item.value if isinstance(item.value, dict) else {}
        spied = spec.get("kind") == "with_spy"
        if spied:
            inner = spec.get("interaction_generator")
            spec = inner if isinstance(inner, dict) else {}
        found.append(_Turn(spec.get("outputs", _MISSING), spied))
    return found


def _dataset_turns(step: Node) -> list[_Turn]:
    value = step.value if isinstance(step.value, dict) else {}
    return [_Turn(value.get("output", _MISSING))] if "input" in value else []


def _usable(turn: _Turn) -> bool:
    return not turn.spied and turn.outputs is not _MISSING


# Which values are selectors ------------------------------------------------------------------


def _selectors(check: Node, dataset: bool, found: list[tuple[str, Node]]) -> None:
    """Add to `found` the (path, value node) of each JSONPath selector of a check (the
    fields the catalog marks so, under any spelling) and of its nested checks, in order.
    A kind that is not registered (a workspace's custom check) has none here."""
    if check.kind != "mapping":
        return
    by_identifier = dataset and "kind" not in check.value
    params = check.get("params") if by_identifier else check
    if params is None or params.kind != "mapping":
        return
    selectors = jsonpath_keys(check.value.get("identifier" if by_identifier else "kind"))
    flat = params._flat  # noqa: SLF001 (key, value, key, value...: what `entries` pairs up)
    for at in range(0, len(flat), 2):
        name = flat[at].value
        if not isinstance(name, str):
            continue
        value = flat[at + 1]
        if name in selectors and isinstance(value.value, str):
            if value.kind == "scalar" and value.value.startswith("trace"):
                found.append((value.value, value))
        elif name in _NESTED:
            nested = value.items if value.kind == "sequence" else [value]
            for inner in nested:
                _selectors(inner, False, found)


def selector_paths(check: Node, dataset: bool) -> tuple[str, ...]:
    """The paths of a check's `trace` selectors, its nested checks' included, in order."""
    found: list[tuple[str, Node]] = []
    _selectors(check, dataset, found)
    return tuple(path for path, _ in found)


@lru_cache(maxsize=4096)  # the same few selectors recur in every scenario of a file
def _parse(path: str) -> tuple[_Segment, ...] | None:
    if not path.startswith("trace"):
        return None
    segments: list[_Segment] = []
    pos = len("trace")
    segment = re.compile(_SEGMENT)  # re's own cache keeps it
    while pos < len(path):
        m = segment.match(path, pos)
        if m is None:
            return None
        group = next(g for g in ("name", "single", "double", "index") if m.group(g) is not None)
        text = m.group(group)
        name: str | int = int(text) if group == "index" else text
        segments.append(_Segment(name, m.start(group), m.end(group)))
        pos = m.end()
    return tuple(segments)


def _outputs_part(segments: Sequence[_Segment], turns: int) -> tuple[int | None, int] | None:
    """(which turn, index of the first segment after `outputs`), for `last.outputs...` and
    `interactions[i].outputs...`; None for any other path. The turn is None when the index
    is out of range (the run reports that)."""
    if len(segments) >= 2 and segments[0].name == "last" and segments[1].name == "outputs":
        return -1, 2
    if (
        len(segments) >= 3
        and segments[0].name == "interactions"
        and isinstance(segments[1].name, int)
        and segments[2].name == "outputs"
    ):
        index = segments[1].name
        return (index if -turns <= index < turns else None), 3
    return None


# Resolving --------------------------------------------------------------------------------


def _against_recording(path: str, node: Node, turns: list[_Turn]) -> Problem | None:
    missing = _missing(path, turns)
    if missing is None:
        return None
    segments, position, keys = missing
    return _problem(path, node, segments, position, keys, "in the recorded outputs")


def _missing(path: str, turns: list[_Turn]) -> tuple[tuple[_Segment, ...], int, list[str]] | None:
    """Where `path` finds nothing in the recorded outputs: its segments, the first one that
    is not there, and the keys that are (none when the value there is text)."""
    segments = _parse(path)
    if segments is None:
        return None
    where = _outputs_part(segments, len(turns))
    if where is None:
        return None
    which, first = where
    if which is None:
        return None
    value = turns[which].outputs
    for position in range(first, len(segments)):
        segment = segments[position]
        name = segment.name
        if isinstance(name, int):
            if isinstance(value, list) and -len(value) <= name < len(value):
                value = value[name]
                continue
            return None  # an index: leave it to the run
        if not isinstance(value, dict):
            if isinstance(value, str):
                return segments, position, []
            return None
        if name not in value:  # a str name: among the str keys exactly when in the dict
            return segments, position, _keys(value) or []
        value = value[name]
    return None


def _against_schema(path: str, node: Node, schema: dict[str, Any]) -> Problem | None:
    segments = _parse(path)
    if segments is None:
        return None
    where = _outputs_part(segments, 1 << 30)
    if where is None:
        return None
    current: Any = schema
    for position in range(where[1], len(segments)):
        segment = segments[position]
        if not isinstance(current, dict) or isinstance(segment.name, int):
            return None
        properties = current.get("properties")
        if not isinstance(properties, dict) or current.get("additionalProperties", False):
            return None  # nothing declared, or anything allowed
        if segment.name not in properties:
            keys = [k for k in properties if isinstance(k, str)]
            return _problem(path, node, segments, position, keys, "in the dataset's output_schema")
        current = properties[segment.name]
    return None


def _keys(value: Any) -> list[str] | None:
    return [k for k in value if isinstance(k, str)] if isinstance(value, dict) else None


def _problem(
    path: str,
    node: Node,
    segments: Sequence[_Segment],
    position: int,
    keys: list[str],
    where: str,
) -> Problem:
    segment = segments[position]
    shown = "trace" + "".join(
        f"[{s.name}]" if isinstance(s.name, int) else f".{s.name}" for s in segments[:position]
    )
    listed = ", ".join(f"'{k}'" for k in keys[:20]) if keys else "no keys (it is text)"
    hint = did_you_mean(str(segment.name), keys)
    message = f"{path} resolves to nothing {where}: {shown} has {listed}"
    if hint is None:
        return warning(CODE, message, node.range)
    message += f"; did you mean '{hint}'?"
    fix = _rename_segment(path, node, segment, hint)
    if fix is None:
        return warning(CODE, message, node.range)
    return warning(CODE, message, node.range, fix=(fix,), fix_title=f"Change to '{hint}'")


def _rename_segment(path: str, node: Node, segment: _Segment, hint: str) -> TextEdit | None:
    """An edit of the segment alone, when the path is written as is on one line."""
    start, end = node.range.start, node.range.end
    if start.line != end.line or not _PLAIN.fullmatch(hint):
        return None
    width = end.character - start.character
    if width == len(path):
        offset = start.character  # plain
    elif width == len(path) + 2:
        offset = start.character + 1  # quoted, nothing escaped
    else:
        return None
    at = Range(
        Position(start.line, offset + segment.start), Position(start.line, offset + segment.end)
    )
    return TextEdit(at, hint)


def _items(node: Node | None) -> Sequence[Node]:
    return node.items if node is not None and node.kind == "sequence" else []
