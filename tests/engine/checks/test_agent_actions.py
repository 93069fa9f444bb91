"""tool_called, tools_in_order, no_span_errors, max_model_calls: each read from a file's
check mapping, on metadata shaped as `capture: otel` fills it (a passing and a failing
example each), and an ERROR naming capture when nothing was recorded."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from checkspec.engine import Check, CheckStatus, Interaction, Trace


def call(name: str, error: str | None = None, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments, "result": "ok", "error": error}


def model(name: str = "gpt-x", error: str | None = None) -> dict[str, Any]:
    return {"model": name, "token_count": 10, "latency_ms": 5.0, "error": error}


CAPTURED = {
    "tools_called": ["search", "lookup_order", "refund"],
    "tool_calls": [
        call("search", q="late parcel"),
        call("lookup_order", order_id="A1", options={"express": True, "notes": "x"}),
        call("refund", order_id="A1", amount=20),
    ],
    "model_calls": [model(), model(), model()],
}


def trace(metadata: dict[str, Any] | None) -> Trace:
    return Trace(interactions=[Interaction(inputs="q", outputs="a", metadata=metadata or {})])


async def outcome(check: dict[str, Any], metadata: dict[str, Any] | None = CAPTURED):
    return await Check.model_validate(check).run(trace(metadata))


@pytest.mark.parametrize(
    ("check", "passes"),
    [
        ({"kind": "tool_called", "tool": "lookup_order"}, True),
        ({"kind": "tool_called", "tool": "cancel_order"}, False),
        ({"kind": "tool_called", "tool": "refund", "arguments": {"amount": 20}}, True),
        ({"kind": "tool_called", "tool": "refund", "arguments": {"amount": 30}}, False),
        # A subset, nested mappings too; keys not given are not looked at.
        (
            {
                "kind": "tool_called",
                "tool": "lookup_order",
                "arguments": {"options": {"express": True}},
            },
            True,
        ),
        ({"kind": "tool_called", "tool": "search", "arguments": {"page": 2}}, False),
        # true is not 1.
        (
            {
                "kind": "tool_called",
                "tool": "lookup_order",
                "arguments": {"options": {"express": 1}},
            },
            False,
        ),
        ({"kind": "tools_in_order", "tools": ["search", "refund"]}, True),
        ({"kind": "tools_in_order", "tools": ["search", "lookup_order", "refund"]}, True),
        ({"kind": "tools_in_order", "tools": ["refund", "search"]}, False),
        ({"kind": "tools_in_order", "tools": ["search", "search"]}, False),
        ({"kind": "no_span_errors"}, True),
        ({"kind": "max_model_calls", "max_calls": 3}, True),
        ({"kind": "max_model_calls", "max_calls": 2}, False),
    ],
)
async def test_passing_and_failing_examples(check: dict[str, Any], passes: bool) -> None:
    result = await outcome(check)
    assert result.status is (CheckStatus.PASS if passes else CheckStatus.FAIL), result.message


async def test_failures_say_what_the_agent_did() -> None:
    missing = await outcome({"kind": "tool_called", "tool": "cancel_order"})
    assert missing.message == "cancel_order was not called (called: search, lookup_order, refund)."
    wrong = await outcome({"kind": "tool_called", "tool": "refund", "arguments": {"amount": 30}})
    assert "never with arguments matching {'amount': 30}" in wrong.message
    assert "'amount': 20" in wrong.message
    order = await outcome({"kind": "tools_in_order", "tools": ["lookup_order", "search"]})
    assert order.message.startswith("search was not called after lookup_order")
    many = await outcome({"kind": "max_model_calls", "max_calls": 1})
    assert many.message == "3 model calls, more than 1."
    assert many.details["model_calls"] == 3


async def test_no_span_errors_lists_the_calls_that_failed() -> None:
    metadata = {
        "tool_calls": [call("search"), call("refund", error="PermissionError: not allowed")],
        "model_calls": [model("gpt-x", error="RateLimitError")],
    }
    result = await outcome({"kind": "no_span_errors"}, metadata)
    assert result.status is CheckStatus.FAIL
    assert result.details["errors"] == [
        "tool refund: PermissionError: not allowed",
        "model call gpt-x: RateLimitError",
    ]


async def test_names_alone_do_for_checks_that_need_no_arguments() -> None:
    # A target that reports its tools itself, by name only.
    names = {"tools_called": ["a", "b"]}
    assert (await outcome({"kind": "tool_called", "tool": "b"}, names)).passed
    assert (await outcome({"kind": "tools_in_order", "tools": ["a", "b"]}, names)).passed
    needs_arguments = await outcome(
        {"kind": "tool_called", "tool": "b", "arguments": {"x": 1}}, names
    )
    assert needs_arguments.status is CheckStatus.ERROR
    assert "No tool_calls" in needs_arguments.message


@pytest.mark.parametrize(
    "check",
    [
        {"kind": "tool_called", "tool": "search"},
        {"kind": "tools_in_order", "tools": ["search"]},
        {"kind": "no_span_errors"},
        {"kind": "max_model_calls", "max_calls": 1},
    ],
)
async def test_nothing_captured_is_an_error_naming_capture(check: dict[str, Any]) -> None:
    result = await outcome(check, {})
    assert result.status is CheckStatus.ERROR
    assert "capture: otel" in result.message


async def test_an_agent_that_called_no_tool_fails_tool_called() -> None:
    result = await outcome({"kind": "tool_called", "tool": "search"}, {"tool_calls": []})
    assert result.status is CheckStatus.FAIL
    assert result.message == "search was not called (called: no tool)."


async def test_metadata_key_reads_another_interaction() -> None:
    earlier = Interaction(inputs="q1", outputs="a1", metadata={"tools_called": ["search"]})
    later = Interaction(inputs="q2", outputs="a2", metadata={"tools_called": []})
    check = Check.model_validate(
        {"kind": "tool_called", "tool": "search", "metadata_key": "trace.interactions[0].metadata"}
    )
    assert (await check.run(Trace(interactions=[earlier, later]))).passed


@pytest.mark.parametrize(
    "check",
    [
        {"kind": "tool_called", "tool": ""},
        {"kind": "tools_in_order", "tools": []},
        {"kind": "max_model_calls", "max_calls": -1},
        {"kind": "max_model_calls"},
        {"kind": "tool_called", "tool": "x", "metadata_key": "last.metadata"},
    ],
)
def test_invalid_parameters_are_refused(check: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Check.model_validate(check)
