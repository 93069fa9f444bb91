"""The engine agrees with every case of the shared conformance corpora."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from checkspec.engine import Check, Scenario, Trace

from .conftest import conformance_cases

CHECK_CASES = conformance_cases("checks.jsonl")
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


@pytest.mark.parametrize("case", SCENARIO_CASES, ids=[c["id"] for c in SCENARIO_CASES])
async def test_scenario_case(case: dict[str, Any]) -> None:
    expected = case["expected"]
    result = await Scenario.model_validate(case["scenario"]).run()
    assert result.status.value == expected["status"]
    assert [s.status.value for s in result.steps] == expected["steps"]
    assert [[r.status.value for r in s.results] for s in result.steps] == expected["checks"]
    assert len(result.final_trace.interactions) == expected["final_interactions"]


def test_corpora_are_not_empty() -> None:
    assert len(CHECK_CASES) > 300
    assert len(SCENARIO_CASES) > 60
