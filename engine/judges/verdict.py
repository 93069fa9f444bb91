"""The judge's verdict and how it is read from free-form model output.

Parsing is strict about meaning and lenient about packaging: the JSON object may sit
inside ```json fences or among other text, but without an unambiguous boolean
`passed` the answer is rejected, never taken as a pass.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from ..llm.answers import VerdictError, extract_json_object

# Appended to every judge prompt so each template need not repeat the answer format.
VERDICT_INSTRUCTION = (
    "\n\nAnswer with a single JSON object and nothing else, in this form:\n"
    '{"passed": true or false, "reason": "one or two sentences explaining the verdict"}'
)


class LLMCheckResult(BaseModel):
    """The structured answer expected from a judge: a verdict and why (never blank)."""

    reason: str = Field(min_length=1, description="Explanation for the pass or fail verdict.")
    passed: bool = Field(description="Whether the check passed or failed.")

    @field_validator("reason", mode="before")
    @classmethod
    def _strip_reason(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value


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
