"""The judge's verdict and how it is read from free-form model output.

Parsing is strict about meaning and lenient about packaging: the JSON object may sit
inside ```json fences or among other text, but without an unambiguous boolean
`passed` the answer is rejected, never taken as a pass.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

# Appended to every judge prompt so each template need not repeat the answer format.
VERDICT_INSTRUCTION = (
    "\n\nAnswer with a single JSON object and nothing else, in this form:\n"
    '{"passed": true or false, "reason": "one or two sentences explaining the verdict"}'
)

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_RAW_LIMIT = 300


class LLMCheckResult(BaseModel):
    """The structured answer expected from a judge: a verdict and why (never blank)."""

    reason: str = Field(min_length=1, description="Explanation for the pass or fail verdict.")
    passed: bool = Field(description="Whether the check passed or failed.")

    @field_validator("reason", mode="before")
    @classmethod
    def _strip_reason(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value


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


def parse_verdict(data: dict[str, Any], raw: str | None = None) -> LLMCheckResult:
    """A verdict from the answer's JSON object; VerdictError unless `passed` is a boolean."""
    shown = raw if raw is not None else json.dumps(data)
    if "passed" not in data:
        raise VerdictError("the JSON object has no 'passed' field", shown)
    passed = data["passed"]
    if isinstance(passed, str) and passed.strip().lower() in ("true", "false"):
        passed = passed.strip().lower() == "true"
    if not isinstance(passed, bool):
        raise VerdictError(f"'passed' is {passed!r}, not true or false", shown)
    reason = data.get("reason")
    if reason is not None and not isinstance(reason, str):
        reason = json.dumps(reason, ensure_ascii=False)
    if reason is None or not reason.strip():
        raise VerdictError("the verdict gives no 'reason'", shown)
    return LLMCheckResult(passed=passed, reason=reason)


def parse_output(data: dict[str, Any], output_type: type[BaseModel], raw: str | None = None) -> Any:
    """The answer's JSON object as `output_type` (a verdict is read leniently, see above)."""
    if output_type is LLMCheckResult:
        return parse_verdict(data, raw)
    try:
        return output_type.model_validate(data)
    except ValidationError as exc:
        shown = raw if raw is not None else json.dumps(data)
        problem = f"it does not match {output_type.__name__}: {exc.errors()[0]['msg']}"
        raise VerdictError(problem, shown) from None


def output_instruction(output_type: type[BaseModel] | None) -> str:
    """What the prompt asks the model to answer with."""
    if output_type is None or output_type is LLMCheckResult:
        return VERDICT_INSTRUCTION
    schema = json.dumps(output_type.model_json_schema(), ensure_ascii=False)
    return (
        "\n\nAnswer with a single JSON object and nothing else, matching this JSON Schema:\n"
        + schema
    )


def read_verdict(text: str | None) -> LLMCheckResult:
    """Parse a raw model answer straight into a verdict."""
    return parse_verdict(extract_json_object(text), text)
