"""Comparisons and run lists as text, markdown (a pull-request comment) and JSON.

`COMPARE_FORMATS` maps a `checkspec compare --format` value to its renderer; another
format (html, engine/html) is one more entry, added by whoever imports both.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from ..core.safe_text import markdown_cell, markdown_code
from ..core.usage import format_cost
from .compare import Comparison, OutputChange, Rate, ScenarioChange
from .store import RunSummary

SHOWN = 50  # scenarios listed per category; the rest are counted
TEXT_CUT = 200  # characters of an output shown


def _run_label(run: dict[str, Any]) -> str:
    git = run.get("git") or {}
    commit = git.get("commit")
    at = f" @ {commit[:8]}{'+dirty' if git.get('dirty') else ''}" if commit else ""
    return f"{run.get('id') or '(report)'} ({run.get('started') or '?'}{at})"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def _delta(rate: Rate) -> str:
    if rate.delta is None:
        return ""
    return f"{rate.delta * 100:+.1f} pts" if rate.delta else "="


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", " ")
    return text if len(text) <= TEXT_CUT else text[: TEXT_CUT - 1] + "…"


def _status(change: ScenarioChange) -> str:
    def one(status: str | None, rate: float | None) -> str:
        shown = (status or "-").upper()
        return f"{shown} {_pct(rate)}" if rate is not None else shown

    return f"{one(change.base_status, change.base_rate)} -> {one(change.head_status, change.head_rate)}"


_SECTIONS = (
    ("newly_failing", "Newly failing"),
    ("fixed", "Fixed"),
    ("still_failing", "Still failing"),
    ("added", "Added"),
    ("removed", "Removed"),
)


def compare_text(comparison: Comparison) -> str:
    lines = [
        f"base: {_run_label(comparison.base)}",
        f"head: {_run_label(comparison.head)}",
    ]
    if comparison.note:
        lines.append(f"note: {comparison.note}")
    lines.append(_counts_line(comparison))
    for attr, title in _SECTIONS:
        changes: list[ScenarioChange] = getattr(comparison, attr)
        if not changes:
            continue
        lines += ["", f"{title} ({len(changes)}):"]
        for change in changes[:SHOWN]:
            where = f"{change.file}:{change.line}" if change.line else change.file
            lines.append(f"  {_status(change):<16} {change.name}  {where}")
            if change.reason and attr in ("newly_failing", "still_failing"):
                lines.append(f"      {_short(change.reason)}")
        if len(changes) > SHOWN:
            lines.append(f"  ... and {len(changes) - SHOWN} more")
    if comparison.changed_outputs:
        lines += ["", f"Changed outputs for the same input ({len(comparison.changed_outputs)}):"]
        for output in comparison.changed_outputs[:SHOWN]:
            lines += _output_lines(output, "  ")
        if len(comparison.changed_outputs) > SHOWN:
            lines.append(f"  ... and {len(comparison.changed_outputs) - SHOWN} more")
    for title, rates in (("check kind", comparison.by_check), ("tag", comparison.by_tag)):
        if not rates:
            continue
        lines += ["", f"Pass rate by {title}:"]
        width = max(len(r.name) for r in rates)
        for rate in rates:
            lines.append(
                f"  {rate.name:<{width}}  {_pct(rate.base_rate):>6} -> {_pct(rate.head_rate):>6}"
                f"  ({rate.base_passed}/{rate.base_total} -> {rate.head_passed}/{rate.head_total})"
                f"  {_delta(rate)}"
            )
    return "\n".join(lines) + "\n"


def _counts_line(comparison: Comparison) -> str:
    parts = [f"{comparison.common} in common"] + [
        f"{len(getattr(comparison, attr))} {title.lower()}" for attr, title in _SECTIONS
    ]
    parts.append(f"{len(comparison.changed_outputs)} changed output(s)")
    return ", ".join(parts)


def _output_lines(output: OutputChange, indent: str) -> list[str]:
    return [
        f"{indent}{output.name} (interaction {output.interaction + 1})",
        f"{indent}    input: {_short(output.inputs)}",
        f"{indent}    base:  {_short(output.base_output)}",
        f"{indent}    head:  {_short(output.head_output)}",
    ]


def _md(text: Any) -> str:
    """Text safe in a markdown table cell: one line, no live HTML, link or image."""
    return markdown_cell(_short(text))


def compare_markdown(comparison: Comparison) -> str:
    newly = len(comparison.newly_failing)
    verdict = f"❌ {newly} scenario(s) newly failing" if newly else "✅ nothing newly failing"
    head_rate = comparison.head.get("pass_rate")
    base_rate = comparison.base.get("pass_rate")
    lines = [
        "## checkspec: compare",
        "",
        f"**{verdict}** · {len(comparison.fixed)} fixed · {len(comparison.still_failing)} "
        f"still failing · {len(comparison.added)} added · {len(comparison.removed)} removed · "
        f"pass rate {_pct(base_rate)} → {_pct(head_rate)}",
        "",
        f"Base `{markdown_code(_run_label(comparison.base))}`, "
        f"head `{markdown_code(_run_label(comparison.head))}`.",
    ]
    if comparison.note:
        lines += ["", f"> **Note:** {comparison.note}"]
    for attr, title in _SECTIONS:
        changes: list[ScenarioChange] = getattr(comparison, attr)
        if not changes:
            continue
        open_ = " open" if attr == "newly_failing" else ""
        lines += [
            "",
            f"<details{open_}><summary><b>{title}</b> ({len(changes)})</summary>",
            "",
            "| scenario | file | status | reason |",
            "| --- | --- | --- | --- |",
        ]
        for change in changes[:SHOWN]:
            where = f"{change.file}:{change.line}" if change.line else change.file
            lines.append(
                f"| {_md(change.name)} | `{markdown_code(_short(where))}` | {_status(change)} | "
                f"{_md(change.reason or '')} |"
            )
        if len(changes) > SHOWN:
            lines.append(f"| ... and {len(changes) - SHOWN} more | | | |")
        lines += ["", "</details>"]
    if comparison.changed_outputs:
        lines += [
            "",
            "<details><summary><b>Changed outputs for the same input</b> "
            f"({len(comparison.changed_outputs)})</summary>",
            "",
            "| scenario | input | base | head |",
            "| --- | --- | --- | --- |",
        ]
        for output in comparison.changed_outputs[:SHOWN]:
            lines.append(
                f"| {_md(output.name)} | {_md(output.inputs)} | {_md(output.base_output)} | "
                f"{_md(output.head_output)} |"
            )
        lines += ["", "</details>"]
    for title, rates in (("check kind", comparison.by_check), ("tag", comparison.by_tag)):
        if not rates:
            continue
        lines += [
            "",
            f"<details><summary><b>Pass rate by {title}</b></summary>",
            "",
            f"| {title} | base | head | change |",
            "| --- | ---: | ---: | ---: |",
        ]
        for rate in rates:
            lines.append(
                f"| {_md(rate.name)} | {_pct(rate.base_rate)} ({rate.base_passed}/"
                f"{rate.base_total}) | {_pct(rate.head_rate)} ({rate.head_passed}/"
                f"{rate.head_total}) | {_delta(rate)} |"
            )
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def compare_json(comparison: Comparison) -> str:
    return json.dumps(comparison.to_json(), indent=2, ensure_ascii=False) + "\n"


COMPARE_FORMATS: dict[str, Callable[[Comparison], str]] = {
    "text": compare_text,
    "json": compare_json,
    "markdown": compare_markdown,
}


def _seconds(started: str) -> str:
    """`2026-12-02T13:55:12Z` of a kept time (milliseconds and the UTC offset dropped)."""
    return started[:19] + "Z" if len(started) >= 19 else started


def history_text(runs: Sequence[RunSummary]) -> str:
    if not runs:
        return "no runs yet\n"
    rows = [("id", "when", "source", "git", "pass", "fail", "error", "skip", "rate", "cost")]
    for run in runs:
        git = "-"
        if run.git_commit:
            git = run.git_commit[:8] + ("+" if run.git_dirty else "")
        rows.append(
            (
                run.id,
                _seconds(run.started),
                run.source,
                git,
                str(run.passed),
                str(run.failed),
                str(run.errored),
                str(run.skipped),
                _pct(run.pass_rate),
                format_cost(run.cost_usd),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return (
        "\n".join(
            "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
            for row in rows
        )
        + "\n"
    )


def history_json(runs: Sequence[RunSummary]) -> str:
    return json.dumps([run.to_json() for run in runs], indent=2, ensure_ascii=False) + "\n"
