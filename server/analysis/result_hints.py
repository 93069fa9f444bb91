"""Results in place: after a run, each check's outcome right after its `kind:` value
("✓ 2 ms", "✗ 0.42 is not > 0.8") and the scenario's after its name.

Only results still true of the text are shown (last_run.current_runs): editing a
scenario hides its results, editing another one does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.problems import Position

from .last_run import LastRun, current_runs

MARKS = {"pass": "✓", "fail": "✗", "error": "⚠", "skip": "○", "cancelled": "○"}
# What a failed comparison did not hold, for "0.42 is not > 0.8".
_OPERATORS = {
    "equals": "=",
    "not_equals": "≠",
    "greater_than": ">",
    "greater_than_equals": "≥",
    "less_than": "<",
    "less_than_equals": "≤",
}
_LABEL_CHARS = 60
_VALUE_CHARS = 24


@dataclass(frozen=True)
class ResultHint:
    position: Position
    label: str
    tooltip: str  # Markdown
    status: str


def result_hints(document: Document, text: str, runs: dict[int, LastRun]) -> list[ResultHint]:
    hints: list[ResultHint] = []
    for entry, run in current_runs(document, text, runs):
        summary = run.summary
        status = str(summary.get("status", ""))
        took = duration(summary.get("duration_ms"))
        label = f"{MARKS.get(status, '?')} {status}" + (f" · {took}" if took else "")
        hints.append(ResultHint(entry.head.end, label, str(summary.get("summary", "")), status))
        for check in summary.get("checks", []):
            place = entry.check_at(check["step"], check["index"])
            if place is None:
                continue
            hints.append(
                ResultHint(
                    place.head.end, check_label(check), check_tooltip(check), check["status"]
                )
            )
    return hints


def check_label(check: dict[str, Any]) -> str:
    status = check["status"]
    mark = MARKS.get(status, "?")
    if status == "pass":
        took = duration(check.get("duration_ms"))
        return f"{mark} {took}" if took else mark
    if status == "skip":
        return f"{mark} not run"
    op = _OPERATORS.get(check.get("kind", ""))
    if status == "fail" and op and "expected" in check and "actual" in check:
        actual, expected = _short(check["actual"]), _short(check["expected"])
        return f"{mark} {actual} is not {op} {expected}"
    return f"{mark} {_first_line(check.get('message', ''), _LABEL_CHARS)}"


def check_tooltip(check: dict[str, Any]) -> str:
    parts = [f"**{check.get('kind', 'check')}**: {check['status']}"]
    if check.get("message"):
        parts.append(check["message"])
    if "expected" in check and "actual" in check:
        parts.append(
            f"expected: `{_short(check['expected'], 200)}`  \nactual: `{_short(check['actual'], 200)}`"
        )
    took = duration(check.get("duration_ms"))
    if took:
        parts.append(f"took {took}")
    return "\n\n".join(parts)


def duration(ms: Any) -> str:
    """`<1 ms`, `12 ms`, `1.4 s`; "" when unknown."""
    if not isinstance(ms, int | float) or isinstance(ms, bool):
        return ""
    if ms < 1:
        return "<1 ms"
    if ms < 1000:
        return f"{ms:.0f} ms"
    return f"{ms / 1000:.1f} s"


def _short(text: str, limit: int = _VALUE_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_line(text: str, limit: int) -> str:
    first = text.strip().split("\n", 1)[0] if text.strip() else "no message"
    return first if len(first) <= limit else first[: limit - 1] + "…"
