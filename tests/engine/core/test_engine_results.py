"""Results (engine/core/result.py): the fast constructors make what validation makes, the
status rules of steps and scenarios, and Unicode normalization (normalization.py)."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from checkspec.engine import CheckResult, CheckStatus, Metric
from checkspec.engine.core.normalization import normalize_data, normalize_string
from checkspec.engine.core.result import (
    ScenarioResult,
    TestCaseError,
    TestCaseResult,
    TestCaseStatus,
)


class Named(CheckResult):
    """A subclass: built through construct(), not the unrolled fast path."""


@pytest.mark.parametrize("cls", [CheckResult, Named])
@pytest.mark.parametrize(
    ("make", "status"),
    [("success", "pass"), ("failure", "fail"), ("error", "error"), ("skip", "skip")],
)
def test_each_constructor_makes_the_validated_result(cls: Any, make: str, status: str) -> None:
    metrics = [Metric(name="m", value=1.5)]
    made = getattr(cls, make)("why", {"a": 1}, metrics)
    assert type(made) is cls
    assert made == cls.model_validate(
        {"status": status, "message": "why", "details": {"a": 1}, "metrics": metrics}
    )
    assert made.model_fields_set == {"status", "message", "metrics", "details"}
    assert (made.passed, made.failed, made.errored, made.skipped) == tuple(
        status == s for s in ("pass", "fail", "error", "skip")
    )
    bare = getattr(cls, make)()
    assert (bare.message, bare.details, bare.metrics) == (None, {}, [])
    assert bare.model_dump() == {"status": status, "message": None, "metrics": [], "details": {}}


def step(*statuses: str, error: bool = False, skip_reason: str | None = None) -> TestCaseResult:
    return TestCaseResult(
        results=[CheckResult(status=CheckStatus(s)) for s in statuses],
        error=TestCaseError(message="x", exception_type="E") if error else None,
        skip_reason=skip_reason,
    )


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        ((), "pass"),
        (("pass",), "pass"),
        (("pass", "skip"), "pass"),
        (("skip", "skip"), "skip"),
        (("pass", "fail", "skip"), "fail"),
        (("fail", "error"), "error"),
        (("error", "pass"), "error"),
    ],
)
def test_a_step_status_is_error_over_fail_over_all_skipped_over_pass(
    statuses: tuple[str, ...], expected: str
) -> None:
    assert step(*statuses).status == expected
    assert step(*statuses, error=True).status == "error"
    assert step(*statuses, skip_reason="earlier step").status == "skip"
    assert step(*statuses, error=True, skip_reason="earlier step").status == "error"


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        ((), "pass"),
        ((("pass",), ("skip",)), "pass"),
        ((("skip",), ("skip",)), "skip"),
        ((("pass",), ("fail",), ("skip",)), "fail"),
        ((("fail",), ("error",)), "error"),
    ],
)
def test_a_scenario_status_is_error_over_fail_over_all_skipped_over_pass(
    steps: tuple[tuple[str, ...], ...], expected: str
) -> None:
    result = ScenarioResult(scenario_name="s", steps=[step(*s) for s in steps])
    assert result.status == expected
    assert [s.status for s in result.failures_and_errors] == [
        s for s in (step(*x).status for x in steps) if s in ("fail", "error")
    ]
    assert TestCaseStatus(expected).value == expected


def test_a_step_lists_its_failures_and_errors() -> None:
    result = step("pass", "fail", "skip", "error")
    assert [r.status for r in result.failures_and_errors] == ["fail", "error"]


class Pair(NamedTuple):
    a: Any
    b: Any


def test_normalization_reaches_every_string_inside_the_data() -> None:
    assert normalize_string("ﬁne  print\n", "NFKC") == "fine print"
    assert normalize_string("ﬁne", None) == "ﬁne"
    assert normalize_string(" a\tb ", None) == "a b"
    assert normalize_string("e\u0301", "NFC") == "é"
    assert normalize_string("é", "NFD") == "e\u0301"
    data = {"k": ["ﬁ", ("ﬁ", {"ﬁ"}), Pair("ﬁ", 1)], "n": 1, "f": 1.5, "b": True, "z": None}
    assert normalize_data(data, "NFKC") == {
        "k": ["fi", ("fi", {"fi"}), Pair("fi", 1)],
        "n": 1,
        "f": 1.5,
        "b": True,
        "z": None,
    }
    normalized = normalize_data(data, "NFKC")
    assert type(normalized["k"][1]) is tuple and type(normalized["k"][2]) is Pair
    assert normalize_data({"ﬁ": "x"}, "NFKC") == {"ﬁ": "x"}  # keys as written
    original = {"a": "ﬁ"}
    normalize_data(original, "NFKC")
    assert original == {"a": "ﬁ"}  # the trace's data is not changed
    marker = object()
    assert normalize_data(marker, "NFKC") is marker
