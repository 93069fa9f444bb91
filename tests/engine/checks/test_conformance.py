"""The engine agrees with every case of the shared conformance corpora.

A check case gives the expected status and, where the original library or a seed
document gives them, the exact message and details (tools/reference_cases.py fills them
in from giskard-checks 1.0.6). `fn` checks name functions of tests/support/conformance_fns.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from checkspec.engine import Check, Scenario, Trace
from tests.support.paths import conformance_cases

CHECK_CASES = conformance_cases("checks.jsonl")


def details_differ(case: dict[str, Any]) -> bool:
    """Cases whose details are known to differ from the library's (the status and message
    still agree): rego_policy names the rule's outcome `result` and leaves out the defaults;
    readability words its score guides more briefly; json_valid adds `parsed_value`, and
    accepts parsed values (docs/decisions.md), which the library refuses; a NoMatch's repr quotes
    its key."""
    return (
        case["check"]["kind"] in ("rego_policy", "readability")
        or case["id"].startswith("json_valid")
        or "NoMatch(" in json.dumps(case.get("details"))
    )


SCENARIO_CASES = conformance_cases("scenarios.jsonl")


@pytest.mark.parametrize("case", CHECK_CASES, ids=[c["id"] for c in CHECK_CASES])
async def test_check_case(case: dict[str, Any]) -> None:
    if case["expected"] == "invalid":
        with pytest.raises(ValidationError):
            Check.model_validate(case["check"])
        return
    check = Check.model_validate(case["check"])
    result = await check.run(Trace.model_validate(case["trace"]))
    assert result.status.value == case["expected"], result.message
    if "message" in case:
        assert result.message == case["message"]
    if "details" in case and not details_differ(case):
        assert json.loads(json.dumps(result.details, default=repr)) == case["details"]


@pytest.mark.parametrize("case", SCENARIO_CASES, ids=[c["id"] for c in SCENARIO_CASES])
async def test_scenario_case(case: dict[str, Any]) -> None:
    expected = case["expected"]
    result = await Scenario.model_validate(case["scenario"]).run(return_exception=True)
    assert result.status.value == expected["status"]
    assert [s.status.value for s in result.steps] == expected["steps"]
    assert [[r.status.value for r in s.results] for s in result.steps] == expected["checks"]
    assert len(result.final_trace.interactions) == expected["final_interactions"]


def test_corpora_are_not_empty() -> None:
    assert len(CHECK_CASES) > 300
    assert len(SCENARIO_CASES) > 60


def test_messages_are_asserted_wherever_the_library_gives_one() -> None:
    reference = [c for c in CHECK_CASES if c["source"].startswith("reference")]
    with_message = [c for c in reference if "message" in c]
    assert len(with_message) > 300
    # the library's fn check without success/failure_message gives no message
    assert {c["id"] for c in reference if "message" not in c and c["expected"] != "invalid"} == {
        "fn-bool-pass",
        "fn-bool-fail",
    }


def test_the_corpora_cover_fn_skip_and_hub_metadata() -> None:
    kinds = {c["check"]["kind"] for c in CHECK_CASES}
    assert {"fn", "hub_metadata", "all_of", "any_of", "not"} <= kinds
    assert {"pass", "fail", "error", "skip", "invalid"} == {c["expected"] for c in CHECK_CASES}
    assert any(c["expected"]["status"] == "skip" for c in SCENARIO_CASES)
