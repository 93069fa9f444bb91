"""hub_metadata: JSONPath rules over the agent's response metadata (dataset files)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..core.check import Check
from ..core.jsonpath import JSONPathStr, NoMatch, parse_expression, resolve
from ..core.result import CheckResult
from ..core.trace import Trace

if TYPE_CHECKING:
    from jsonpath_ng.jsonpath import JSONPath

ValueType = Literal["string", "number", "boolean"]
_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "boolean": (bool,),
}


@lru_cache(maxsize=1024)
def parse_metadata_path(path: str) -> JSONPath:
    """Parse a `$.field` rule path (raises ValueError with the reason)."""
    if not path.startswith("$"):
        raise ValueError(f"json_path must start with '$' (e.g. '$.category'), got {path!r}")
    try:
        return parse_expression(path)
    except Exception as exc:
        raise ValueError(f"invalid json_path {path!r}: {exc}") from None


class JsonPathRule(BaseModel):
    """One rule: the value at `json_path` in the metadata equals `expected_value`."""

    # The schemas say what the validators below check: the path's `$` and the value's type.
    model_config = ConfigDict(
        defer_build=True,
        extra="forbid",
        json_schema_extra={
            "allOf": [
                {
                    "if": {
                        "properties": {"expected_value_type": {"const": name}},
                        "required": ["expected_value_type"],
                    },
                    "then": {"properties": {"expected_value": {"type": json_type}}},
                }
                for name, json_type in (
                    ("string", "string"),
                    ("number", "number"),
                    ("boolean", "boolean"),
                )
            ]
        },
    )

    json_path: str = Field(
        description="JSONPath into the metadata, e.g. $.category.",
        json_schema_extra={"pattern": "^\\$"},
    )
    expected_value: str | float | int | bool = Field(description="The expected value.")
    expected_value_type: ValueType = Field(description="Type of the expected value.")

    @field_validator("json_path")
    @classmethod
    def _parses(cls, path: str) -> str:
        parse_metadata_path(path)
        return path

    @model_validator(mode="after")
    def _typed(self) -> JsonPathRule:
        value = self.expected_value
        wanted = _PYTHON_TYPES[self.expected_value_type]
        is_bool = isinstance(value, bool)
        if (self.expected_value_type == "number" and is_bool) or not isinstance(value, wanted):
            raise ValueError(
                f"expected_value {value!r} is not a {self.expected_value_type} "
                f"(expected_value_type)"
            )
        return self


@Check.register("hub_metadata")
class HubMetadata(Check):
    """Passes when every rule's path in the response metadata holds its expected value."""

    metadata_key: JSONPathStr = Field(
        default="trace.last.outputs.metadata",
        description="JSONPath to the metadata object the rules read.",
    )
    json_path_rules: list[JsonPathRule] = Field(
        min_length=1, description="Rules, each with json_path, expected_value, expected_value_type."
    )

    async def run(self, trace: Trace) -> CheckResult:
        metadata = resolve(trace, self.metadata_key)
        details: dict[str, Any] = {"metadata": metadata}
        if isinstance(metadata, NoMatch):
            return CheckResult.error(
                f"No metadata found at '{self.metadata_key}': the agent must return metadata.",
                details,
            )
        problems: list[str] = []
        for rule in self.json_path_rules:
            matches = parse_metadata_path(rule.json_path).find(metadata)
            if not matches:
                problems.append(f"{rule.json_path}: no value")
                continue
            actual = matches[0].value
            if not _same(actual, rule.expected_value, rule.expected_value_type):
                problems.append(
                    f"{rule.json_path}: expected {rule.expected_value!r}, got {actual!r}"
                )
        details["problems"] = problems
        if problems:
            return CheckResult.failure("Metadata rules not met: " + "; ".join(problems), details)
        return CheckResult.success(
            f"All {len(self.json_path_rules)} metadata rule(s) hold.", details
        )


def _same(actual: Any, expected: Any, value_type: str) -> bool:
    if value_type == "number":
        return (
            isinstance(actual, int | float) and not isinstance(actual, bool) and actual == expected
        )
    if value_type == "boolean":
        return isinstance(actual, bool) and actual is expected
    return isinstance(actual, str) and actual == expected
