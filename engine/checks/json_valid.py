"""json_valid: the value is JSON (a JSON string, or an already-parsed JSON value)."""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any

from pydantic import AliasChoices, ConfigDict, Field, field_validator

from ..core.check import Check
from ..core.json_schema import SchemaTimeout, bounded_errors, offline_validator, schema_problem
from ..core.jsonpath import JSONPathStr, NoMatch, resolve
from ..core.result import CheckResult
from ..core.trace import Trace

__all__ = ["JsonValid", "schema_problem"]


# Longest a run may spend validating one value against `schema` (a catastrophic `pattern`).
SCHEMA_SECONDS = 2.0

# json.loads's own scanner (json.loads(text) = this scanner from 0, then whitespace skips).
_scan_once = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set in __init__


def loads(text: str) -> Any:
    """`json.loads(text)`, without its Python wrappers when the text is exactly one value.

    A text that does not start with a value (whitespace, a BOM) or does not end with it,
    or that the scanner rejects, goes to json.loads, which then parses or raises as usual.
    """
    try:
        value, end = _scan_once(text, 0)
    except Exception:  # StopIteration (no value at 0) or a decode error: json.loads says
        return json.loads(text)
    return value if end == len(text) else json.loads(text)


@Check.register("json_valid")
class JsonValid(Check):
    """Passes when the value is valid JSON, optionally matching a JSON Schema."""

    # Dumped as `schema` (checks-reference: "Serialized as schema in JSON").
    model_config = ConfigDict(defer_build=True, serialize_by_alias=True)

    target_key: JSONPathStr = Field(
        default="trace.last.outputs", description="JSONPath to the value to validate."
    )
    expected_schema: dict[str, Any] | None = Field(
        default=None,
        # The reference library serializes this field as `schema`; read both spellings.
        validation_alias=AliasChoices("expected_schema", "schema"),
        serialization_alias="schema",
        description="Optional JSON Schema the (parsed) value must conform to.",
    )
    parse: bool = Field(
        default=True,
        description=(
            "Parse string values as JSON text. Values that are already parsed (objects, "
            "lists, numbers, booleans, null) are validated as they are."
        ),
    )

    @field_validator("expected_schema")
    @classmethod
    def validate_schema_definition(cls, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        if schema is not None and (problem := schema_problem(schema)):
            raise ValueError(f"Provided JSON Schema is invalid: {problem}")
        return schema

    @cached_property
    def _validator(self) -> Any:
        # Built once per check instance: validator construction dominates small checks.
        return offline_validator(self.expected_schema or {})

    async def run(self, trace: Trace) -> CheckResult:
        value = resolve(trace, self.target_key)
        details: dict[str, Any] = {
            "target_key": self.target_key,
            "value": value,
            "schema": self.expected_schema,
        }
        if isinstance(value, NoMatch):
            return CheckResult.error(f"No value found for key '{self.target_key}'.", details)
        if self.parse and isinstance(value, str):
            try:
                value = loads(value)
            except json.JSONDecodeError as exc:
                details["error"] = str(exc)
                return CheckResult.failure(
                    f"Value at key '{self.target_key}' is not valid JSON: {exc}", details
                )
        else:
            try:
                json.dumps(value)
            except (TypeError, ValueError) as exc:
                details["error"] = str(exc)
                return CheckResult.failure(
                    f"Value at key '{self.target_key}' is not JSON serializable: {exc}", details
                )
        details["parsed_value"] = value
        if self.expected_schema is not None:
            from referencing.exceptions import Unresolvable

            try:
                errors = bounded_errors(self._validator, value, SCHEMA_SECONDS, first=True)
            except Unresolvable as exc:
                return CheckResult.error(
                    f"JSON Schema contains an unresolvable $ref: {exc}.", details
                )
            except SchemaTimeout as exc:
                return CheckResult.error(f"JSON Schema check stopped: {exc}.", details)
            error = errors[0] if errors else None
            if error is not None:
                details["error"] = error.message
                return CheckResult.failure(
                    f"JSON value at key '{self.target_key}' does not match the provided "
                    f"schema: {error.message}.",
                    details,
                )
        return CheckResult.success(f"Value at key '{self.target_key}' is valid JSON.", details)
