"""tool_called, tools_in_order, no_span_errors, max_model_calls: what the agent did.

They read an interaction's metadata (`trace.last.metadata` unless `metadata_key` says
otherwise, in dataset files too: capture writes there, not into the recorded answer) under the names `capture: otel` fills (engine/capture, docs/capture.md):
`tool_calls` (`{name, arguments, result, error}` each), `tools_called` (names) and
`model_calls` (`{model, ..., error}` each). A target that reports these keys itself is
checked the same way. A missing key is an ERROR that says how to get it, never a FAIL:
nothing was observed, so nothing can be said of the agent.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ..core.check import Check
from ..core.jsonpath import JSONPathStr, NoMatch, resolve
from ..core.result import CheckResult
from ..core.trace import Trace

_METADATA = "trace.last.metadata"
_HOW = "run with `capture: otel` (docs/capture.md), or have the target return it"


def _metadata_field() -> Any:
    return Field(
        default=_METADATA,
        description="JSONPath to the metadata that holds what the agent did (capture: otel).",
    )


def _metadata(trace: Trace, key: str) -> dict[str, Any] | CheckResult:
    found = resolve(trace, key)
    if isinstance(found, NoMatch) or not isinstance(found, dict):
        return CheckResult.error(f"No metadata at '{key}': {_HOW}.", {"metadata_key": key})
    return found


def _names(metadata: dict[str, Any], key: str) -> list[str] | CheckResult:
    """The tools called, by name, in order: from `tool_calls`, else `tools_called`."""
    calls = metadata.get("tool_calls")
    if isinstance(calls, list):
        return [str(c.get("name")) for c in calls if isinstance(c, dict)]
    names = metadata.get("tools_called")
    if isinstance(names, list):
        return [str(n) for n in names]
    return CheckResult.error(
        f"No tool calls at '{key}' (neither tool_calls nor tools_called): {_HOW}.",
        {"metadata_key": key},
    )


def _tools_called(trace: Trace, key: str) -> tuple[dict[str, Any], list[str]] | CheckResult:
    """The metadata at `key` and the tools called in it, or the ERROR saying why not."""
    metadata = _metadata(trace, key)
    if isinstance(metadata, CheckResult):
        return metadata
    names = _names(metadata, key)
    if isinstance(names, CheckResult):
        return names
    return metadata, names


def matches(actual: Any, expected: Any) -> bool:
    """`expected` is found in `actual`: a mapping's given keys match (recursively; keys
    not given are not looked at); any other value is equal."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and matches(actual[key], value) for key, value in expected.items()
        )
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    return bool(actual == expected)


@Check.register("tool_called")
class ToolCalled(Check):
    """Passes when the agent called the tool (with arguments that match, when given)."""

    tool: str = Field(min_length=1, description="The tool's name, as the agent calls it.")
    arguments: dict[str, Any] | None = Field(
        default=None,
        description=(
            "Arguments one of its calls must have had: the keys given must hold these "
            "values (nested mappings likewise); keys not given are not looked at."
        ),
    )
    metadata_key: JSONPathStr = _metadata_field()

    async def run(self, trace: Trace) -> CheckResult:
        found = _tools_called(trace, self.metadata_key)
        if isinstance(found, CheckResult):
            return found
        metadata, names = found
        details: dict[str, Any] = {"tools_called": names, "tool": self.tool}
        if self.tool not in names:
            called = ", ".join(names) if names else "no tool"
            return CheckResult.failure(f"{self.tool} was not called (called: {called}).", details)
        if self.arguments is None:
            return CheckResult.success(f"{self.tool} was called.", details)
        calls = metadata.get("tool_calls")
        if not isinstance(calls, list):
            return CheckResult.error(
                f"No tool_calls at '{self.metadata_key}' to read {self.tool}'s arguments from: "
                f"{_HOW}.",
                details,
            )
        given = [
            c.get("arguments") for c in calls if isinstance(c, dict) and c.get("name") == self.tool
        ]
        details.update(expected_arguments=self.arguments, arguments=given)
        if any(matches(arguments, self.arguments) for arguments in given):
            return CheckResult.success(f"{self.tool} was called with matching arguments.", details)
        return CheckResult.failure(
            f"{self.tool} was called, but never with arguments matching {self.arguments!r} "
            f"(got {', '.join(repr(a) for a in given)}).",
            details,
        )


@Check.register("tools_in_order")
class ToolsInOrder(Check):
    """Passes when the agent called these tools in this order (others may come between)."""

    tools: list[str] = Field(
        min_length=1,
        description="Tool names in the order they must be called; other calls may come between.",
    )
    metadata_key: JSONPathStr = _metadata_field()

    async def run(self, trace: Trace) -> CheckResult:
        tools = _tools_called(trace, self.metadata_key)
        if isinstance(tools, CheckResult):
            return tools
        _, names = tools
        details: dict[str, Any] = {"tools_called": names, "expected_order": self.tools}
        found = 0
        for name in names:
            if found < len(self.tools) and name == self.tools[found]:
                found += 1
        called = ", ".join(names) if names else "no tool"
        if found == len(self.tools):
            return CheckResult.success(f"Tools called in order: {called}.", details)
        missing = self.tools[found]
        after = f" after {self.tools[found - 1]}" if found else ""
        return CheckResult.failure(
            f"{missing} was not called{after} (called: {called}; expected in order: "
            f"{', '.join(self.tools)}).",
            details,
        )


@Check.register("no_span_errors")
class NoSpanErrors(Check):
    """Passes when no tool call and no model call of the agent ended in error."""

    metadata_key: JSONPathStr = _metadata_field()

    async def run(self, trace: Trace) -> CheckResult:
        metadata = _metadata(trace, self.metadata_key)
        if isinstance(metadata, CheckResult):
            return metadata
        tools, models = metadata.get("tool_calls"), metadata.get("model_calls")
        if not isinstance(tools, list) and not isinstance(models, list):
            return CheckResult.error(
                f"No tool_calls or model_calls at '{self.metadata_key}': {_HOW}.",
                {"metadata_key": self.metadata_key},
            )
        errors = [
            f"{what} {call.get(label) or '?'}: {call['error']}"
            for what, label, calls in (("tool", "name", tools), ("model call", "model", models))
            if isinstance(calls, list)
            for call in calls
            if isinstance(call, dict) and call.get("error")
        ]
        details: dict[str, Any] = {"errors": errors}
        if errors:
            return CheckResult.failure(
                f"{len(errors)} call(s) ended in error: " + "; ".join(errors), details
            )
        counted = len(tools or []) + len(models or [])
        return CheckResult.success(f"None of {counted} tool and model call(s) failed.", details)


@Check.register("max_model_calls")
class MaxModelCalls(Check):
    """Passes when the agent called models at most `max_calls` times."""

    max_calls: int = Field(ge=0, description="The most model calls the agent may make.")
    metadata_key: JSONPathStr = _metadata_field()

    async def run(self, trace: Trace) -> CheckResult:
        metadata = _metadata(trace, self.metadata_key)
        if isinstance(metadata, CheckResult):
            return metadata
        calls = metadata.get("model_calls")
        if not isinstance(calls, list):
            return CheckResult.error(
                f"No model_calls at '{self.metadata_key}': {_HOW}.",
                {"metadata_key": self.metadata_key},
            )
        details: dict[str, Any] = {"model_calls": len(calls), "max_calls": self.max_calls}
        if len(calls) > self.max_calls:
            return CheckResult.failure(
                f"{len(calls)} model calls, more than {self.max_calls}.", details
            )
        return CheckResult.success(
            f"{len(calls)} model call(s), at most {self.max_calls}.", details
        )
