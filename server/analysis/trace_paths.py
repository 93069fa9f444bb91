"""`trace.` JSONPaths: reading the typed prefix and what comes next at each point.

The first two levels are the engine's own models (`trace.last`, `trace.interactions[i]`,
then `inputs` / `outputs` / `metadata`); below that the keys are the user's data, taken
from what the scenario recorded; below `metadata`, in a workspace with `capture: otel`,
also the keys capture fills (the catalog's CAPTURED_METADATA).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from checkspec.engine.catalog import CAPTURED_METADATA
from checkspec.engine.core.sentinel import MISSING
from checkspec.engine.core.trace import Interaction, Trace

from .recorded import RecordedScenario

ROOT = "trace"
_SEGMENT = re.compile(
    r"\.(?P<name>[A-Za-z_$][\w$-]*)|\.'(?P<single>[^']*)'|\.\"(?P<double>[^\"]*)\""
    r"|\[\s*(?P<index>-?\d+)\s*\]"
)
_PLAIN_NAME = re.compile(r"[A-Za-z_][\w-]*")
INTERACTION_FIELDS = ("inputs", "outputs", "metadata")

Step = str | int


@dataclass(frozen=True)
class PathKey:
    """One name that may follow a path prefix."""

    name: str
    detail: str
    documentation: str = ""


def parse_steps(text: str) -> list[Step] | None:
    """`trace.last.outputs[0]` -> ["last", "outputs", 0]; None for anything fancier."""
    if not text.startswith(ROOT):
        return None
    steps: list[Step] = []
    pos = len(ROOT)
    while pos < len(text):
        m = _SEGMENT.match(text, pos)
        if m is None:
            return None
        if m.group("index") is not None:
            steps.append(int(m.group("index")))
        else:
            steps.append(m.group("name") or m.group("single") or m.group("double") or "")
        pos = m.end()
    return steps


def format_name(name: str) -> str:
    """A key as written after a dot (quoted when it is not a plain name)."""
    return name if _PLAIN_NAME.fullmatch(name) else "'" + name.replace("'", "") + "'"


def next_keys(
    steps: list[Step], recorded: RecordedScenario | None, captured: bool = False
) -> list[PathKey]:
    """What may follow `trace` + steps + '.'; `captured`: the run captures spans
    (`capture: otel`), so the metadata holds its keys too (after the recorded ones)."""
    if not steps:
        return _trace_fields()
    head = steps[0]
    if head == "last" and len(steps) == 1:
        return _interaction_fields()
    if head == "interactions" and len(steps) == 2 and isinstance(steps[1], int):
        return _interaction_fields()
    keys = [] if recorded is None else _data_keys(_values_at(steps, recorded))
    if captured:
        seen = {key.name for key in keys}
        keys += [key for key in _captured_keys(steps) if key.name not in seen]
    return keys


def _captured_keys(steps: list[Step]) -> list[PathKey]:
    """The keys capture fills at `steps`: under an interaction's metadata, and in each
    item of its lists of records (`tool_calls[0].`)."""
    rest: list[Step] | None
    if steps[:2] == ["last", "metadata"]:
        rest = steps[2:]
    elif len(steps) >= 3 and steps[0] == "interactions" and isinstance(steps[1], int):
        rest = steps[3:] if steps[2] == "metadata" else None
    else:
        rest = None
    if rest == []:
        return [
            PathKey(k.name, k.detail, f"{k.description} Captured (capture: otel).")
            for k in CAPTURED_METADATA
        ]
    if rest is not None and len(rest) == 2 and isinstance(rest[1], int):
        for key in CAPTURED_METADATA:
            if key.name == rest[0]:
                return [
                    PathKey(name, "captured", f"Of each of {key.name}.") for name in key.item_keys
                ]
    return []


def _trace_fields() -> list[PathKey]:
    last = Trace.model_computed_fields["last"].description or ""
    return [
        PathKey("last", "the latest interaction", last),
        PathKey("interactions", "every interaction, oldest first: interactions[0], [-1]..."),
        PathKey("annotations", "mapping", Trace.model_fields["annotations"].description or ""),
    ]


def _interaction_fields() -> list[PathKey]:
    fields = Interaction.model_fields
    return [
        PathKey(name, "interaction field", fields[name].description or "")
        for name in INTERACTION_FIELDS
    ]


def _values_at(steps: list[Step], recorded: RecordedScenario) -> list[Any]:
    """The recorded values `trace` + steps points at (several when `last` could be any)."""
    head, rest = steps[0], steps[1:]
    if head == "annotations":
        roots: list[Any] = [recorded.annotations]
    elif head == "last":
        roots = [i.as_data() for i in _last_candidates(recorded)]
    elif head == "interactions" and rest and isinstance(rest[0], int):
        data = [i.as_data() for i in recorded.interactions]
        index, rest = rest[0], rest[1:]
        roots = [data[index]] if -len(data) <= index < len(data) else []
    else:
        return []
    return [v for v in (walk(root, rest) for root in roots) if v is not MISSING]


def _last_candidates(recorded: RecordedScenario) -> list[Any]:
    # Inside a step, `last` is that step's latest interaction; elsewhere it could be any.
    with_data = [i for i in recorded.interactions if i.outputs is not MISSING]
    if recorded.step is not None and recorded.interactions:
        latest = recorded.interactions[-1]
        return [latest] if latest.outputs is not MISSING else with_data
    return with_data


def walk(value: Any, steps: Iterable[Step]) -> Any:
    """Follow keys and indexes through plain data (MISSING when a step is not there)."""
    for step in steps:
        if isinstance(step, str):
            found = isinstance(value, dict) and step in value
        else:
            found = isinstance(value, list) and -len(value) <= step < len(value)
        if not found:
            return MISSING
        value = value[step]
    return value


def _data_keys(values: list[Any]) -> list[PathKey]:
    seen: dict[str, PathKey] = {}
    for value in values:
        if not isinstance(value, dict):
            continue
        for key, inner in value.items():
            if isinstance(key, str) and key not in seen:
                seen[key] = PathKey(key, preview(inner), "Recorded in this scenario.")
    return list(seen.values())


def keys_at(value: Any) -> list[str]:
    return [k for k in value if isinstance(k, str)] if isinstance(value, dict) else []


def preview(value: Any, limit: int = 48) -> str:
    """A one-line glimpse of a recorded value."""
    if isinstance(value, dict):
        return f"{{{len(value)} keys}}" if len(value) != 1 else "{1 key}"
    if isinstance(value, list):
        return f"[{len(value)} items]" if len(value) != 1 else "[1 item]"
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
