"""What capture recorded of one call, as the short lines a failed scenario's text report
shows: each tool call with its arguments and result, each model call with its tokens and
latency, in call order kind by kind, then the totals. Plain text on one line each
(values written as JSON, so a line break in a result stays `\\n`), cut to a bounded
length; the report makes it safe for the terminal as it does the rest."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

MAX_CALLS = 10  # of each kind shown for one interaction
MAX_VALUE_CHARS = 80


def has_capture(metadata: Any) -> bool:
    """Whether the metadata holds what capture records (not only what a spec wrote)."""
    return isinstance(metadata, Mapping) and isinstance(metadata.get("span_count"), int)


def activity_lines(metadata: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    tools = [c for c in metadata.get("tool_calls") or [] if isinstance(c, Mapping)]
    models = [c for c in metadata.get("model_calls") or [] if isinstance(c, Mapping)]
    for call in tools[:MAX_CALLS]:
        line = f"tool {call.get('name')}({_value(call.get('arguments'))})"
        if call.get("result") is not None:
            line += f" -> {_value(call['result'])}"
        lines.append(line + _error(call))
    if len(tools) > MAX_CALLS:
        lines.append(f"... {len(tools) - MAX_CALLS} more tool calls")
    for call in models[:MAX_CALLS]:
        tokens = call.get("token_count")
        counted = f"{tokens} tokens, " if tokens is not None else ""
        lines.append(f"model {call.get('model')}: {counted}{_ms(call)}{_error(call)}")
    if len(models) > MAX_CALLS:
        lines.append(f"... {len(models) - MAX_CALLS} more model calls")
    total = [f"{len(tools)} tool call(s)", f"{len(models)} model call(s)"]
    if metadata.get("token_count") is not None:
        total.append(f"{metadata['token_count']} tokens")
    total.append(_ms(metadata))
    lines.append(", ".join(total) + f" ({metadata.get('span_count')} spans)")
    return lines


def _value(value: Any) -> str:
    if isinstance(value, dict):  # arguments: written as in a call, name=value
        text = ", ".join(
            f"{_cut(str(key))}={json.dumps(inner, ensure_ascii=False, default=str)}"
            for key, inner in value.items()
        )
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    return _cut(text)


def _ms(values: Mapping[str, Any]) -> str:
    latency = values.get("latency_ms")
    number = isinstance(latency, int | float) and not isinstance(latency, bool)
    return f"{latency:.0f} ms" if number else "? ms"


def _error(call: Mapping[str, Any]) -> str:
    error = call.get("error")
    if not error:
        return ""
    return "  ERROR " + _cut(json.dumps(str(error), ensure_ascii=False)[1:-1])


def _cut(text: str) -> str:
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"
