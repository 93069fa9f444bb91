"""Bad input gets a clear message at the right place (docs/decisions.md "Behaviour people
count on"): validation errors name the field, run-time problems are ERROR results."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from checkspec.engine import (
    AllOf,
    Check,
    CheckStatus,
    Interact,
    RegexMatching,
    Scenario,
    StringMatching,
    TestCaseStatus,
)


def errors_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    with pytest.raises(ValidationError) as info:
        Check.model_validate(data)
    return info.value.errors()


# --------------------------------------------------------------------------- check specs


def test_unknown_kind_suggests_the_closest_one() -> None:
    with pytest.raises(ValidationError) as info:
        Check.model_validate({"kind": "string_matchin", "keyword": "x"})
    assert "unknown kind 'string_matchin'" in str(info.value)
    assert "did you mean 'string_matching'" in str(info.value)
    assert info.value.errors()[0]["type"] == "unknown_kind"


def test_unknown_kind_without_a_close_match_has_no_suggestion() -> None:
    with pytest.raises(ValidationError) as info:
        Check.model_validate({"kind": "zzzzzz"})
    assert "unknown kind 'zzzzzz'" in str(info.value)
    assert "did you mean" not in str(info.value)


def test_missing_kind_is_rejected() -> None:
    errors = errors_of({"keyword": "x"})
    assert "'kind' is required" in errors[0]["msg"]


def test_extra_field_is_rejected_naming_the_field() -> None:
    errors = errors_of({"kind": "string_matching", "keyword": "x", "keywrod": "y"})
    assert len(errors) == 1
    assert errors[0]["loc"] == ("keywrod",)
    assert errors[0]["type"] == "extra_forbidden"


def test_missing_required_field_is_named() -> None:
    errors = errors_of({"kind": "rego_policy", "rule": "data.giskard.allow"})
    assert [e["loc"] for e in errors] == [("policy",)]
    assert errors[0]["type"] == "missing"


def test_both_keyword_and_keyword_key_is_an_error_naming_both() -> None:
    errors = errors_of(
        {"kind": "string_matching", "keyword": "x", "keyword_key": "trace.last.inputs"}
    )
    message = errors[0]["msg"]
    assert "'keyword'" in message
    assert "'keyword_key'" in message
    assert "both were given" in message


def test_neither_keyword_nor_keyword_key_is_an_error() -> None:
    errors = errors_of({"kind": "string_matching"})
    assert "Exactly one of 'keyword' or 'keyword_key' must be provided" in errors[0]["msg"]
    assert "neither was given" in errors[0]["msg"]


@pytest.mark.parametrize(
    ("data", "value_field", "key_field"),
    [
        ({"kind": "regex_matching"}, "pattern", "pattern_key"),
        (
            {"kind": "regex_matching", "pattern": "a", "pattern_key": "trace.last.inputs"},
            "pattern",
            "pattern_key",
        ),
        ({"kind": "equals"}, "expected_value", "expected_value_key"),
        (
            {"kind": "less_than", "expected_value": 1, "expected_value_key": "trace.last.inputs"},
            "expected_value",
            "expected_value_key",
        ),
    ],
    ids=["regex-neither", "regex-both", "equals-neither", "less_than-both"],
)
def test_exactly_one_of_value_or_key(
    data: dict[str, Any], value_field: str, key_field: str
) -> None:
    message = errors_of(data)[0]["msg"]
    assert f"'{value_field}'" in message
    assert f"'{key_field}'" in message


def test_nested_bad_check_reports_its_position() -> None:
    data = {
        "kind": "all_of",
        "checks": [
            {"kind": "equals", "expected_value": 1},
            {"kind": "string_matching"},
        ],
    }
    errors = errors_of(data)
    assert len(errors) == 1
    assert errors[0]["loc"][:2] == ("checks", 1)
    assert "keyword" in errors[0]["msg"]

    with pytest.raises(ValidationError) as info:
        AllOf.model_validate(data)
    assert info.value.errors()[0]["loc"][:2] == ("checks", 1)


def test_nested_extra_field_and_unknown_kind_are_located() -> None:
    errors = errors_of(
        {
            "kind": "any_of",
            "checks": [
                {"kind": "equals", "expected_value": 1, "colour": "red"},
                {"kind": "not", "check": {"kind": "equalz", "expected_value": 1}},
            ],
        }
    )
    by_loc = {e["loc"]: e for e in errors}
    assert ("checks", 0, "colour") in by_loc
    assert by_loc[("checks", 0, "colour")]["type"] == "extra_forbidden"
    unknown = [e for e in errors if e["loc"][:3] == ("checks", 1, "check")]
    assert unknown, errors
    assert "did you mean 'equals'" in unknown[0]["msg"]


def test_bad_jsonpath_in_a_serialized_check_is_located() -> None:
    errors = errors_of({"kind": "equals", "expected_value": 1, "target_key": "outputs.x"})
    assert errors[0]["loc"] == ("target_key",)
    assert "must start with 'trace.'" in errors[0]["msg"]


def test_wrong_type_is_rejected() -> None:
    errors = errors_of({"kind": "string_matching", "keyword": "x", "case_sensitive": "maybe"})
    assert errors[0]["loc"] == ("case_sensitive",)


def test_regex_timeout_must_be_positive() -> None:
    with pytest.raises(ValidationError) as info:
        RegexMatching(pattern="a", match_timeout_seconds=0)
    assert info.value.errors()[0]["loc"] == ("match_timeout_seconds",)


def test_bad_check_inside_a_scenario_is_located() -> None:
    with pytest.raises(ValidationError) as info:
        Scenario.model_validate(
            {
                "name": "s",
                "steps": [
                    {
                        "interacts": [{"inputs": "q", "outputs": "a"}],
                        "checks": [{"kind": "string_matching", "keyword": "a"}, {"kind": "nope"}],
                    }
                ],
            }
        )
    error = info.value.errors()[0]
    assert error["loc"][:4] == ("steps", 0, "checks", 1)
    assert "unknown kind 'nope'" in error["msg"]


def test_unknown_interaction_kind_is_located() -> None:
    with pytest.raises(ValidationError) as info:
        Scenario.model_validate(
            {"name": "s", "steps": [{"interacts": [{"kind": "interakt", "inputs": "q"}]}]}
        )
    error = info.value.errors()[0]
    assert error["loc"][:4] == ("steps", 0, "interacts", 0)
    assert "did you mean 'interact'" in error["msg"]


# --------------------------------------------------------------------------- run time


async def test_interaction_without_outputs_or_target_is_an_error_result() -> None:
    scenario = Scenario.model_validate(
        {
            "name": "no_output",
            "steps": [
                {
                    "interacts": [{"inputs": "What is your refund policy?"}],
                    "checks": [{"kind": "string_matching", "keyword": "refund"}],
                },
                {"checks": [{"kind": "string_matching", "keyword": "x"}]},
            ],
        }
    )
    result = await scenario.run(return_exception=True)
    assert result.status is TestCaseStatus.ERROR
    assert [s.status for s in result.steps] == [TestCaseStatus.ERROR, TestCaseStatus.SKIP]
    error = result.steps[0].error
    assert error is not None
    assert "no recorded 'outputs'" in error.message
    assert "no target" in error.message
    assert error.phase == "input_generation"
    assert [r.status for r in result.steps[0].results] == [CheckStatus.SKIP]
    assert any("no recorded 'outputs'" in line for line in result.format_failures())


async def test_interaction_without_outputs_raises_by_default() -> None:
    scenario = Scenario("no_output").add_interaction(Interact(inputs="q"))
    with pytest.raises(Exception, match="no recorded 'outputs'"):
        await scenario.run()


async def test_unimportable_python_target_is_an_error_result_with_the_cause() -> None:
    scenario = Scenario.model_validate(
        {
            "name": "bad_target",
            "target": "python:no_such_package_xyz.agent:answer",
            "steps": [
                {
                    "interacts": [{"inputs": "hello"}],
                    "checks": [{"kind": "string_matching", "keyword": "hi"}],
                },
                {"checks": [{"kind": "string_matching", "keyword": "x"}]},
            ],
        }
    )
    result = await scenario.run(return_exception=True)
    assert result.status is TestCaseStatus.ERROR
    assert [s.status for s in result.steps] == [TestCaseStatus.ERROR, TestCaseStatus.SKIP]
    error = result.steps[0].error
    assert error is not None
    assert "no_such_package_xyz" in error.message
    assert "No module named" in error.message
    assert error.phase == "target"
    assert error.traceback and "ModuleNotFoundError" in error.traceback
    assert result.final_trace.interactions == []


async def test_python_target_missing_attribute_is_an_error_result() -> None:
    scenario = Scenario.model_validate(
        {
            "name": "bad_attr",
            "target": "python:tests.support.spy_target:no_such_function",
            "steps": [{"interacts": [{"inputs": "hello"}], "checks": []}],
        }
    )
    result = await scenario.run(return_exception=True)
    assert result.status is TestCaseStatus.ERROR
    assert "no_such_function" in result.steps[0].error.message


async def test_target_that_raises_is_an_error_result() -> None:
    def agent(inputs: str) -> str:
        raise RuntimeError("agent crashed")

    scenario = (
        Scenario("crashing_agent")
        .add_interaction(Interact(inputs="q"))
        .check(StringMatching(keyword="x"))
    )
    result = await scenario.run(target=agent, return_exception=True)
    assert result.status is TestCaseStatus.ERROR
    error = result.steps[0].error
    assert error.exception_type == "RuntimeError"
    assert error.message == "agent crashed"
    assert "agent crashed" in error.traceback

    with pytest.raises(RuntimeError, match="agent crashed"):
        await scenario.run(target=agent)


def test_malformed_target_reference_is_rejected_or_errors() -> None:
    # The shape is checked without importing anything.
    from checkspec.engine.targets import describe_target_problem

    assert describe_target_problem("python:agent") is not None
    assert describe_target_problem("ftp://agent") is not None
    assert describe_target_problem("python:pkg.agent:answer") is None
    assert describe_target_problem("https://example.invalid/chat") is None
