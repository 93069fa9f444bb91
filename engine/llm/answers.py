"""Reading a JSON object out of a model's free-form answer.

Strict about meaning and lenient about packaging: the object may sit inside ```json
fences or among other text; two objects that disagree on `passed` are refused.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_RAW_LIMIT = 300


class VerdictError(ValueError):
    """The model's answer could not be read as a verdict."""

    def __init__(self, problem: str, raw: str | None) -> None:
        self.problem = problem
        self.raw = raw
        super().__init__(f"The judge's answer is not a verdict: {problem} (answer: {_clip(raw)})")


def _clip(raw: str | None) -> str:
    if raw is None:
        return "none"
    text = raw.strip()
    return repr(text if len(text) <= _RAW_LIMIT else text[:_RAW_LIMIT] + "...")


def extract_json_object(text: str | None) -> dict[str, Any]:
    """The JSON object in a model's answer (bare, fenced, or embedded in prose)."""
    if not text or not text.strip():
        raise VerdictError("the answer is empty", text)
    candidates = _objects(text)
    if not candidates:
        raise VerdictError("no JSON object found", text)
    with_verdict = [c for c in candidates if "passed" in c]
    if not with_verdict:
        return candidates[0]
    # Two objects that disagree (an example followed by the answer?) are ambiguous.
    if len({json.dumps(c.get("passed")) for c in with_verdict}) > 1:
        raise VerdictError("several JSON objects with different 'passed' values", text)
    return with_verdict[0]


def _objects(text: str) -> list[dict[str, Any]]:
    whole = _loads(text.strip())
    if isinstance(whole, dict):
        return [whole]
    found: list[dict[str, Any]] = []
    for block in _FENCE.findall(text):
        value = _loads(block.strip())
        if isinstance(value, dict):
            found.append(value)
    if found:
        return found
    decoder = json.JSONDecoder()
    position = text.find("{")
    while position != -1:
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            position = text.find("{", position + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        position = text.find("{", end)
    return found


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


__all__ = ["VerdictError", "extract_json_object"]
