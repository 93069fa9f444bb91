"""Reading a JSON report someone else may have written (`report`, `compare`, `merge`,
`label --from-run` take report files from anywhere: a CI artifact, a colleague's run).

`load_json_report(text, path)` is `json.loads` with the nesting bounded: a value nested
deeper than `MAX_REPORT_DEPTH` levels (the limit of a spec file, engine/spec/source.py)
is refused with a `ReportTooDeep` naming the file, before anything walks it; the
renderers, pydantic and the JSON encoder all recurse once per level and would end in a
`RecursionError` (or pydantic's "Maximum serialization depth") far from the file. The
depth is measured without recursion, only when the text could be that deep.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MAX_REPORT_DEPTH = 200


class ReportTooDeep(ValueError):
    """A report nested deeper than checkspec reads; the message names the file."""


def load_json_report(text: str, path: str | Path) -> Any:
    """The JSON value of `text`; ValueError for what is not JSON, ReportTooDeep (a
    ValueError) past the nesting bound."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ReportTooDeep(_too_deep(path)) from None
    deep = text.count("[") + text.count("{") > MAX_REPORT_DEPTH
    if deep and nesting_depth(value, MAX_REPORT_DEPTH) > MAX_REPORT_DEPTH:
        raise ReportTooDeep(_too_deep(path))
    return value


def _too_deep(path: str | Path) -> str:
    return (
        f"{path}: nested deeper than {MAX_REPORT_DEPTH} levels; "
        "not a report checkspec reads (was it written by `checkspec run --format json`?)"
    )


def nesting_depth(value: Any, bound: int) -> int:
    """The levels of nesting of a JSON value (1 for a flat list or object), measured
    without recursion; stops counting once past `bound`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[Any]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > bound:
            return deepest
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest
