"""The last run of a scenario as Markdown, for a hover on its name: the conversation
(inputs, outputs, what the agent did when capture recorded it, and metadata per turn)
and each check's verdict with its reason.

What the agent said is untrusted text: it is shown in code blocks fenced longer than
any backtick run it holds, so it cannot turn into Markdown (links, images, HTML).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .result_hints import MARKS, duration

_MAX_CHARS = 4000  # of one value in a hover; the VS Code transcript view shows more
_TICKS = re.compile(r"`+")


def transcript_markdown(summary: dict[str, Any]) -> str:
    status = str(summary.get("status", ""))
    head = f"**Last run**: {MARKS.get(status, '?')} {status}"
    took = duration(summary.get("duration_ms"))
    if took:
        head += f" · {took}"
    if summary.get("replayed"):
        head += " · recorded outputs replayed"
    previous = summary.get("previous")
    if isinstance(previous, dict) and previous.get("status") not in (None, status):
        was = str(previous["status"])
        head += f" · previously {MARKS.get(was, '?')} {was}"
        if previous.get("run"):
            head += f" (run `{str(previous['run']).replace('`', '')}`)"
    parts = [head]
    checks_by_step: dict[int, list[dict[str, Any]]] = {}
    for check in summary.get("checks", []):
        checks_by_step.setdefault(check.get("step", 0), []).append(check)
    turns_by_step: dict[int, list[dict[str, Any]]] = {}
    for turn in summary.get("turns", []):
        turns_by_step.setdefault(turn.get("step", 0), []).append(turn)
    errors = {e.get("step"): e for e in summary.get("errors", [])}
    for step in sorted(set(checks_by_step) | set(turns_by_step) | set(errors)):
        parts.append(f"---\n\n**Step {step + 1}**")
        for turn in turns_by_step.get(step, []):
            parts.append("*inputs*\n\n" + fenced(turn.get("inputs", "")))
            parts.append("*outputs*\n\n" + fenced(turn.get("outputs", "")))
            if turn.get("activity"):
                parts.append("*what the agent did*\n\n" + fenced("\n".join(turn["activity"])))
            if turn.get("metadata"):
                parts.append("*metadata*\n\n" + fenced(turn["metadata"], "json"))
        if step in errors:
            parts.append("⚠ " + plain(errors[step].get("message", "")))
        for check in checks_by_step.get(step, []):
            parts.append(check_line(check))
    output = summary.get("output")
    if output:
        parts.append("---\n\n*printed*\n\n" + fenced(output))
    return "\n\n".join(parts)


def last_check_markdown(check: dict[str, Any]) -> str:
    """One check of the last run, for a hover on it: its verdict, then what it read (its
    details, a judge's reason aside: the verdict line has it)."""
    text = "**Last run**: " + check_line(check)
    details = {k: v for k, v in (check.get("details") or {}).items() if k != "reason"}
    if details:
        text += "\n\n" + fenced(json.dumps(details, indent=1, ensure_ascii=False), "json")
    return text


def check_line(check: dict[str, Any]) -> str:
    status = check.get("status", "")
    kind = str(check.get("kind", "")).replace("`", "")
    line = f"{MARKS.get(status, '?')} `{kind}` {status}"
    took = duration(check.get("duration_ms"))
    if took:
        line += f" ({took})"
    message = check.get("message", "")
    reason = (check.get("details") or {}).get("reason")
    if message:
        line += ": " + plain(message)
    if reason and reason != message:
        line += "  \n*reason*: " + plain(reason)
    return line


def fenced(text: str, language: str = "text") -> str:
    """`text` in a code block no backtick run inside can close."""
    text = text if len(text) <= _MAX_CHARS else text[:_MAX_CHARS] + "\n…"
    longest = max((len(m.group()) for m in _TICKS.finditer(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


# What could make text inside a line more than text: emphasis, code, links, HTML, tables.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")


def plain(text: str, limit: int = 500) -> str:
    """One line of untrusted text with Markdown's special characters escaped."""
    text = " ".join(str(text).split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)
