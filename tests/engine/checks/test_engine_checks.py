"""Built-in checks, as the seed documents describe them (checks-reference,
new-check-conventions, docs/decisions.md "Where the reference documents disagree").

Every test asserts the status and the meaningful part of the message or details.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from pydantic import ValidationError

from checkspec.engine import (
    MISSING,
    AllOf,
    AnyOf,
    Check,
    CheckResult,
    CheckStatus,
    Equals,
    FnCheck,
    GreaterEquals,
    GreaterThan,
    GreaterThanEquals,
    HubMetadata,
    Interaction,
    JsonValid,
    LesserThan,
    LesserThanEquals,
    LessThan,
    LessThanEquals,
    Metric,
    NoMatch,
    Not,
    NotEquals,
    Readability,
    RegexMatching,
    RegoPolicy,
    Scenario,
    StringMatching,
    Trace,
    from_fn,
    provided_or_resolve,
    resolve,
)
from checkspec.engine.core.check import FieldIssue, lint_later

PASS, FAIL, ERROR, SKIP = CheckStatus.PASS, CheckStatus.FAIL, CheckStatus.ERROR, CheckStatus.SKIP


def trace_of(*outputs: Any, metadata: dict[str, Any] | None = None) -> Trace:
    """A trace with one interaction per output; `metadata` goes on the last one."""
    interactions = [
        Interaction(inputs=f"question {i}", outputs=out) for i, out in enumerate(outputs)
    ]
    if metadata is not None:
        last = interactions[-1]
        interactions[-1] = Interaction(inputs=last.inputs, outputs=last.outputs, metadata=metadata)
    return Trace(interactions=interactions)


class Recorder:
    """A check function that records each call and returns a fixed outcome."""

    def __init__(self, outcome: bool | CheckResult = True) -> None:
        self.calls = 0
        self.outcome = outcome

    def __call__(self, trace: Trace) -> bool | CheckResult:
        self.calls += 1
        return self.outcome


# --------------------------------------------------------------------------- StringMatching


async def test_string_matching_seed_example_passes_and_fails() -> None:
    check = StringMatching(keyword="success", text_key="trace.last.outputs")
    assert check.target_key == "trace.last.outputs"

    result = await check.run(trace_of("The operation was a success."))
    assert result.status is PASS
    assert result.message == "The answer contains the keyword 'success'."
    assert result.details["text"] == "The operation was a success."
    assert result.details["keyword"] == "success"

    result = await check.run(trace_of("The operation failed."))
    assert result.status is FAIL
    assert "does not contain the keyword 'success'" in result.message


async def test_string_matching_case_insensitive_seed_example() -> None:
    insensitive = StringMatching(
        keyword="error", text_key="trace.last.outputs", case_sensitive=False
    )
    result = await insensitive.run(trace_of("An ERROR occurred"))
    assert result.status is PASS
    assert result.details["case_sensitive"] is False

    sensitive = StringMatching(keyword="error", text_key="trace.last.outputs")
    result = await sensitive.run(trace_of("An ERROR occurred"))
    assert result.status is FAIL
    assert "does not contain the keyword 'error'" in result.message


async def test_string_matching_nfkc_normalization_is_the_default() -> None:
    # U+FB01 (the "fi" ligature) is NFKC-equivalent to "fi".
    trace = trace_of("Please fill in the file form.")
    default = StringMatching(keyword="\ufb01le")
    assert default.normalization_form == "NFKC"
    result = await default.run(trace)
    assert result.status is PASS
    assert result.details["normalization_form"] == "NFKC"

    raw = StringMatching(keyword="\ufb01le", normalization_form=None)
    result = await raw.run(trace)
    assert result.status is FAIL
    assert "does not contain the keyword" in result.message


async def test_string_matching_keyword_key_and_no_match() -> None:
    trace = Trace(
        interactions=[Interaction(inputs="refund", outputs="Our refund policy is 30 days.")]
    )
    result = await StringMatching(keyword_key="trace.last.inputs").run(trace)
    assert result.status is PASS
    assert result.details["keyword"] == "refund"

    result = await StringMatching(keyword_key="trace.last.metadata.keyword").run(trace)
    assert result.status is ERROR
    assert "trace.last.metadata.keyword" in result.message

    result = await StringMatching(keyword="x", target_key="trace.last.outputs.missing").run(trace)
    assert result.status is ERROR
    assert "trace.last.outputs.missing" in result.message


async def test_string_matching_non_string_text_is_an_error() -> None:
    result = await StringMatching(keyword="1").run(trace_of({"a": 1}))
    assert result.status is ERROR
    assert "not a string" in result.message
    assert "dict" in result.message


# --------------------------------------------------------------------------- RegexMatching


async def test_regex_matching_seed_example() -> None:
    check = RegexMatching(pattern=r"\d{3}-\d{3}-\d{4}", text_key="trace.last.outputs.phone")
    assert check.match_timeout_seconds == 1.0  # docs/decisions.md: default is 1.0

    result = await check.run(trace_of({"phone": "555-123-4567"}))
    assert result.status is PASS
    assert result.message == r"Text matches the regex pattern '\d{3}-\d{3}-\d{4}'."

    result = await check.run(trace_of({"phone": "call me maybe"}))
    assert result.status is FAIL
    assert r"does not match the regex pattern '\d{3}-\d{3}-\d{4}'" in result.message


async def test_regex_matching_pattern_key() -> None:
    trace = trace_of("Call 555-123-4567 today", metadata={"pattern": r"\d{3}-\d{4}"})
    result = await RegexMatching(pattern_key="trace.last.metadata.pattern").run(trace)
    assert result.status is PASS
    assert result.details["pattern"] == r"\d{3}-\d{4}"

    result = await RegexMatching(pattern_key="trace.last.metadata.nope").run(trace)
    assert result.status is ERROR
    assert "trace.last.metadata.nope" in result.message


async def test_regex_matching_catastrophic_pattern_errors_on_timeout() -> None:
    # The `regex` engine short-cuts the textbook `(a+)+$`, but not the alternation, whose
    # backtracking grows as the Fibonacci numbers: on 80 characters it would run for
    # centuries, so the time limit is what ends it on any machine, however fast.
    check = RegexMatching(pattern=r"(a|aa)+$", match_timeout_seconds=0.2)
    result = await check.run(trace_of("a" * 80 + "!"))
    assert result.status is ERROR
    assert result.message == ("Regex matching exceeded timeout of 0.2s for pattern '(a|aa)+$'.")


async def test_regex_matching_nested_quantifier_finishes_within_timeout() -> None:
    # `(a+)+$` is the classic catastrophic pattern; the engine must not hang on it and
    # (the `regex` module optimises it) decides it does not match: a FAIL, not a hang.
    check = RegexMatching(pattern=r"(a+)+$", match_timeout_seconds=0.2)
    result = await check.run(trace_of("a" * 40 + "!"))
    assert result.status in (FAIL, ERROR)
    if result.status is ERROR:
        assert "timeout" in result.message
    else:
        assert "does not match" in result.message


async def test_regex_matching_bad_pattern_lint_and_run() -> None:
    check = RegexMatching(pattern="(unclosed")
    issues = check.lint()
    assert len(issues) == 1
    assert issues[0].field == "pattern"
    assert issues[0].code == "regex-syntax"
    assert "invalid regex" in issues[0].message

    result = await check.run(trace_of("anything"))
    assert result.status is ERROR
    assert "Invalid regex pattern '(unclosed'" in result.message

    assert RegexMatching(pattern=r"\d+").lint() == []


# --------------------------------------------------------------------------- comparisons


async def test_equals_seed_examples() -> None:
    trace = trace_of({"count": 42, "status": "success"})
    result = await Equals(expected_value=42, key="trace.last.outputs.count").run(trace)
    assert result.status is PASS
    assert result.message == "The actual value 42 is equal to the expected value 42."
    assert result.details == {"actual_value": 42, "expected_value": 42}

    result = await Equals(expected_value="success", key="trace.last.outputs.status").run(trace)
    assert result.status is PASS

    result = await Equals(expected_value=41, key="trace.last.outputs.count").run(trace)
    assert result.status is FAIL
    assert result.message == "Expected value equal to 41 but got 42"


async def test_equals_expected_value_key_from_another_interaction() -> None:
    check = Equals(
        expected_value_key="trace.interactions[0].outputs.baseline",
        key="trace.last.outputs.result",
    )
    same = trace_of({"baseline": 7}, {"result": 7})
    result = await check.run(same)
    assert result.status is PASS
    assert result.details == {"actual_value": 7, "expected_value": 7}

    different = trace_of({"baseline": 7}, {"result": 8})
    result = await check.run(different)
    assert result.status is FAIL
    assert "Expected value equal to 7 but got 8" in result.message

    no_baseline = trace_of({"other": 7}, {"result": 7})
    result = await check.run(no_baseline)
    assert result.status is ERROR
    assert "trace.interactions[0].outputs.baseline" in result.message


async def test_equals_missing_actual_value_is_an_error_naming_the_key() -> None:
    result = await Equals(expected_value=1, target_key="trace.last.outputs.count").run(
        trace_of({"total": 1})
    )
    assert result.status is ERROR
    assert "No value found for key 'trace.last.outputs.count'" in result.message


async def test_equals_explicit_none_and_normalization() -> None:
    result = await Equals(expected_value=None).run(trace_of(None))
    assert result.status is PASS

    result = await Equals(expected_value="the \ufb01le").run(trace_of("the  file "))
    assert result.status is PASS  # NFKC + whitespace collapsing

    result = await Equals(expected_value="the \ufb01le", normalization_form=None).run(
        trace_of("the file")
    )
    assert result.status is FAIL


async def test_not_equals_seed_example() -> None:
    check = NotEquals(expected_value="error", key="trace.last.outputs.status")
    result = await check.run(trace_of({"status": "ok"}))
    assert result.status is PASS
    assert "is not equal to the expected value 'error'" in result.message

    result = await check.run(trace_of({"status": "error"}))
    assert result.status is FAIL
    assert result.message == "Expected value not equal to 'error' but got 'error'"


async def test_greater_than_and_greater_equals_seed_examples() -> None:
    gt = GreaterThan(expected_value=0.8, key="trace.last.metadata.confidence_score")
    result = await gt.run(trace_of("ok", metadata={"confidence_score": 0.9}))
    assert result.status is PASS
    assert "is greater than the expected value 0.8" in result.message
    result = await gt.run(trace_of("ok", metadata={"confidence_score": 0.8}))
    assert result.status is FAIL
    assert result.message == "Expected value greater than 0.8 but got 0.8"

    ge = GreaterEquals(expected_value=100, key="trace.last.outputs.user_count")
    result = await ge.run(trace_of({"user_count": 100}))
    assert result.status is PASS
    assert "greater than or equal to" in result.message
    result = await ge.run(trace_of({"user_count": 99}))
    assert result.status is FAIL
    assert result.message == "Expected value greater than or equal to 100 but got 99"


async def test_lesser_than_and_lesser_than_equals_seed_examples() -> None:
    lt = LesserThan(expected_value=500, key="trace.last.metadata.latency_ms")
    result = await lt.run(trace_of("ok", metadata={"latency_ms": 120}))
    assert result.status is PASS
    assert "is less than the expected value 500" in result.message
    result = await lt.run(trace_of("ok", metadata={"latency_ms": 500}))
    assert result.status is FAIL
    assert result.message == "Expected value less than 500 but got 500"

    le = LesserThanEquals(expected_value=1000, key="trace.last.metadata.token_count")
    result = await le.run(trace_of("ok", metadata={"token_count": 1000}))
    assert result.status is PASS
    result = await le.run(trace_of("ok", metadata={"token_count": 1001}))
    assert result.status is FAIL
    assert result.message == "Expected value less than or equal to 1000 but got 1001"


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [
        (GreaterEquals, GreaterThanEquals, "greater_than_equals"),
        (LesserThan, LessThan, "less_than"),
        (LesserThanEquals, LessThanEquals, "less_than_equals"),
    ],
)
async def test_both_class_spellings_are_the_same_check(old: Any, new: Any, kind: str) -> None:
    assert old is new
    check = old(expected_value=5)
    assert check.kind == kind
    assert isinstance(Check.model_validate({"kind": kind, "expected_value": 5}), new)
    result = await check.run(trace_of(5))
    assert result.status is (FAIL if kind == "less_than" else PASS)


async def test_unsupported_comparison_is_an_error() -> None:
    result = await LessThan(expected_value="a").run(trace_of(3))
    assert result.status is ERROR
    assert "Comparison not supported" in result.message
    assert "<" in result.message


@pytest.mark.parametrize(
    ("check", "status", "fragment"),
    [
        (Equals(expected_value=2, match="any"), PASS, "At least one value in [1, 2, 3]"),
        (Equals(expected_value=9, match="any"), FAIL, "none matched in [1, 2, 3]"),
        (GreaterThan(expected_value=0, match="all"), PASS, "All values in [1, 2, 3]"),
        (GreaterThan(expected_value=1, match="all"), FAIL, "Expected all values greater than 1"),
        (Equals(expected_value=9, match="none"), PASS, "No value in [1, 2, 3] is equal to 9"),
        (Equals(expected_value=2, match="none"), FAIL, "found matches in [2]"),
    ],
    ids=["any-pass", "any-fail", "all-pass", "all-fail", "none-pass", "none-fail"],
)
async def test_comparison_match_modes(check: Check, status: CheckStatus, fragment: str) -> None:
    result = await check.run(trace_of([1, 2, 3]))
    assert result.status is status
    assert fragment in result.message


async def test_comparison_match_needs_a_collection() -> None:
    result = await Equals(expected_value=2, match="any").run(trace_of(2))
    assert result.status is ERROR
    assert "Expected a list, set, or tuple at key 'trace.last.outputs'" in result.message


async def test_comparison_match_over_a_wildcard_path() -> None:
    trace = trace_of({"score": 3}, {"score": 7})
    check = GreaterThan(
        expected_value=2, target_key="trace.interactions[*].outputs.score", match="all"
    )
    result = await check.run(trace)
    assert result.status is PASS
    assert result.details["actual_value"] == [3, 7]


# --------------------------------------------------------------------------- JsonValid


async def test_json_valid_accepts_a_json_string() -> None:
    check = JsonValid(key="trace.last.outputs")
    result = await check.run(trace_of('{"answer": "yes"}'))
    assert result.status is PASS
    assert result.message == "Value at key 'trace.last.outputs' is valid JSON."
    assert result.details["parsed_value"] == {"answer": "yes"}

    result = await check.run(trace_of('{"answer": '))
    assert result.status is FAIL
    assert "is not valid JSON" in result.message


@pytest.mark.parametrize("value", [{"answer": "yes"}, [1, 2], 3, True, None])
async def test_json_valid_accepts_an_already_parsed_value(value: Any) -> None:
    result = await JsonValid().run(trace_of(value))
    assert result.status is PASS
    assert result.details["parsed_value"] == value


async def test_json_valid_non_serializable_value_fails() -> None:
    result = await JsonValid().run(trace_of({"when": object()}))
    assert result.status is FAIL
    assert "not JSON serializable" in result.message


SEED_SCHEMA = {
    "type": "object",
    "required": ["answer"],
    "properties": {"answer": {"type": "string"}},
}


async def test_json_valid_schema_seed_example() -> None:
    check = JsonValid(key="trace.last.outputs", expected_schema=SEED_SCHEMA)

    result = await check.run(trace_of('{"answer": "Paris"}'))
    assert result.status is PASS

    result = await check.run(trace_of({"answer": "Paris"}))
    assert result.status is PASS

    result = await check.run(trace_of({"answer": 1}))
    assert result.status is FAIL
    assert "does not match the provided schema" in result.message
    assert "1 is not of type 'string'" in result.message

    result = await check.run(trace_of("{}"))
    assert result.status is FAIL
    assert "'answer' is a required property" in result.message


def test_json_valid_invalid_schema_is_rejected_at_construction() -> None:
    with pytest.raises(ValidationError) as info:
        JsonValid(expected_schema={"type": 12})
    errors = info.value.errors()
    assert errors[0]["loc"] == ("expected_schema",)
    assert "Provided JSON Schema is invalid: invalid JSON Schema" in errors[0]["msg"]
    assert "expected_schema" in str(info.value)


async def test_json_valid_no_match_is_an_error() -> None:
    result = await JsonValid(key="trace.last.outputs.payload").run(trace_of({"other": 1}))
    assert result.status is ERROR
    assert "trace.last.outputs.payload" in result.message


# --------------------------------------------------------------------------- RegoPolicy

SEED_POLICY = """
package giskard

default allow = false

allow if {
    input.role == "admin"
}
"""


async def test_rego_policy_seed_example() -> None:
    check = RegoPolicy(policy=SEED_POLICY, rule="data.giskard.allow")
    assert check.target_key == "trace.last.outputs"

    result = await check.run(trace_of({"role": "admin"}))
    assert result.status is PASS
    # The reference library's messages and detail keys.
    assert result.message == "Rule 'data.giskard.allow' evaluated to true."
    assert result.details == {
        "target_key": "trace.last.outputs",
        "data": {},
        "rule": "data.giskard.allow",
        "input": {"role": "admin"},
        "value": True,
    }

    result = await check.run(trace_of({"role": "user"}))
    assert result.status is FAIL
    assert result.message == "Rule 'data.giskard.allow' evaluated to false."


async def test_rego_policy_static_data() -> None:
    policy = "package giskard\n\nallow if {\n    input.role in data.allowed_roles\n}\n"
    check = RegoPolicy(policy=policy, rule="data.giskard.allow", data={"allowed_roles": ["ops"]})
    result = await check.run(trace_of({"role": "ops"}))
    assert result.status is PASS
    assert "evaluated to true" in result.message

    result = await check.run(trace_of({"role": "guest"}))
    assert result.status is FAIL
    assert "undefined" in result.message


async def test_rego_policy_undefined_rule_fails() -> None:
    policy = "package giskard\n\nallow if {\n    input.x == 1\n}\n"
    result = await RegoPolicy(policy=policy, rule="data.giskard.allow").run(trace_of({"x": 2}))
    assert result.status is FAIL
    assert result.message == "Rule 'data.giskard.allow' is undefined."


async def test_rego_policy_non_boolean_rule_errors() -> None:
    policy = 'package giskard\n\nverdict := "yes"\n'
    result = await RegoPolicy(policy=policy, rule="data.giskard.verdict").run(trace_of({}))
    assert result.status is ERROR
    assert result.message == (
        "Rule 'data.giskard.verdict' returned str, expected bool or undefined."
    )
    assert result.details["value"] == "yes"


BROKEN_POLICY = "package giskard\n\nallow if {\n    input.role == \n}\n"


def test_rego_policy_that_does_not_compile_is_rejected_with_its_line() -> None:
    # As the reference library: rejected when the check is built.
    with pytest.raises(ValidationError) as info:
        RegoPolicy(policy=BROKEN_POLICY, rule="data.giskard.allow")
    [error] = info.value.errors()
    assert error["type"] == "rego_syntax"
    assert error["msg"].startswith("Invalid Rego policy or data: ")
    assert "at line 5, column 1" in error["msg"]  # the closing brace: an expression was due
    assert (error["ctx"]["line"], error["ctx"]["column"]) == (5, 1)


def test_rego_policy_data_that_does_not_load_is_rejected() -> None:
    with pytest.raises(ValidationError, match="Invalid Rego policy or data"):
        RegoPolicy(policy=SEED_POLICY, rule="data.giskard.allow", data={"x": float("nan")})


def test_rego_policy_lint_returns_a_located_field_issue() -> None:
    # The located document builds checks within lint_later() and reports this instead.
    with lint_later():
        check = RegoPolicy(policy=BROKEN_POLICY, rule="data.giskard.allow")
    issues = check.lint()
    assert len(issues) == 1
    issue = issues[0]
    assert isinstance(issue, FieldIssue)
    assert issue.field == "policy"
    assert issue.code == "rego-syntax"
    assert issue.message.startswith("Rego: ")
    assert (issue.line, issue.column) == (4, 0)  # 0-based: line 5, column 1

    assert RegoPolicy(policy=SEED_POLICY, rule="data.giskard.allow").lint() == []


def test_rego_policy_rule_must_be_a_data_path() -> None:
    with pytest.raises(ValidationError) as info:
        RegoPolicy(policy=SEED_POLICY, rule="giskard.allow")
    assert info.value.errors()[0]["loc"] == ("rule",)
    assert "data." in info.value.errors()[0]["msg"]


# --------------------------------------------------------------------------- composition


async def test_all_of_seed_example() -> None:
    check = AllOf(
        checks=[
            LesserThan(expected_value=10, key="trace.last.outputs"),
            Equals(expected_value=5, key="trace.last.outputs"),
        ]
    )
    result = await check.run(trace_of(5))
    assert result.status is PASS
    assert "is less than the expected value 10" in result.message
    assert "is equal to the expected value 5" in result.message

    result = await check.run(trace_of(12))
    assert result.status is FAIL
    assert result.message == "Expected value less than 10 but got 12"


async def test_all_of_short_circuits_on_failure_and_error() -> None:
    second = Recorder(True)
    failing = AllOf(checks=[Equals(expected_value="no"), FnCheck(fn=second)])
    result = await failing.run(trace_of("yes"))
    assert result.status is FAIL
    assert "Expected value equal to 'no'" in result.message
    assert second.calls == 0

    erroring = AllOf(
        checks=[Equals(expected_value=1, target_key="trace.last.outputs.x"), FnCheck(fn=second)]
    )
    result = await erroring.run(trace_of("yes"))
    assert result.status is ERROR
    assert "trace.last.outputs.x" in result.message
    assert second.calls == 0

    passing = AllOf(checks=[Equals(expected_value="yes"), FnCheck(fn=second)])
    result = await passing.run(trace_of("yes"))
    assert result.status is PASS
    assert second.calls == 1


async def test_any_of_seed_example() -> None:
    check = AnyOf(
        checks=[
            StringMatching(keyword="yes", key="trace.last.outputs"),
            StringMatching(keyword="approved", key="trace.last.outputs"),
        ]
    )
    result = await check.run(trace_of("Your request is approved."))
    assert result.status is PASS
    assert result.message == "The answer contains the keyword 'approved'."

    result = await check.run(trace_of("Denied."))
    assert result.status is FAIL
    assert result.message.startswith("No checks passed. Failures: ")
    assert "keyword 'yes'" in result.message
    assert "keyword 'approved'" in result.message


async def test_any_of_short_circuits_on_first_pass() -> None:
    second = Recorder(False)
    check = AnyOf(checks=[StringMatching(keyword="yes"), FnCheck(fn=second)])
    result = await check.run(trace_of("yes indeed"))
    assert result.status is PASS
    assert second.calls == 0

    result = await check.run(trace_of("nope"))
    assert result.status is FAIL
    assert second.calls == 1


async def test_not_seed_example_inverts() -> None:
    check = Not(check=StringMatching(keyword="forbidden", key="trace.last.outputs"))
    result = await check.run(trace_of("all clear"))
    assert result.status is PASS
    assert result.message.startswith("Check correctly failed (inverted)")
    assert "does not contain the keyword 'forbidden'" in result.message

    result = await check.run(trace_of("this is forbidden"))
    assert result.status is FAIL
    assert result.message.startswith("Expected check to fail, but it passed")


async def test_not_passes_error_and_skip_through() -> None:
    erroring = Not(check=Equals(expected_value=1, target_key="trace.last.outputs.nope"))
    result = await erroring.run(trace_of({}))
    assert result.status is ERROR
    assert "trace.last.outputs.nope" in result.message

    skipping = Not(check=FnCheck(fn=lambda trace: CheckResult.skip("not applicable here")))
    result = await skipping.run(trace_of("x"))
    assert result.status is SKIP
    assert result.message == "not applicable here"


# --------------------------------------------------------------------------- Readability

SIMPLE_TEXT = "The cat sat on the mat. The dog ran in the park. We had fun in the sun."


@pytest.mark.parametrize(
    ("metric", "bounds"),
    [
        ("flesch_reading_ease", {"min_score": 60}),
        ("flesch_kincaid_grade", {"max_score": 8}),
        ("gunning_fog", {"max_score": 12}),
        ("automated_readability_index", {"max_score": 10}),
        ("coleman_liau_index", {"max_score": 10}),
        ("dale_chall_readability_score", {"max_score": 9}),
    ],
)
async def test_readability_metrics_on_simple_english(metric: str, bounds: dict[str, float]) -> None:
    result = await Readability(metric=metric, **bounds).run(trace_of(SIMPLE_TEXT))
    assert result.status is PASS, result.message
    assert f"({metric}) is within the acceptable range" in result.message
    assert len(result.metrics) == 1
    assert isinstance(result.metrics[0], Metric)
    assert result.metrics[0].name == metric
    assert result.details["score"] == result.metrics[0].value


async def test_readability_out_of_bounds_fails() -> None:
    result = await Readability(metric="flesch_reading_ease", max_score=20).run(
        trace_of(SIMPLE_TEXT)
    )
    assert result.status is FAIL
    assert "exceeds the maximum threshold of 20" in result.message

    result = await Readability(metric="gunning_fog", min_score=30).run(trace_of(SIMPLE_TEXT))
    assert result.status is FAIL
    assert "is below the minimum threshold of 30" in result.message


async def test_readability_needs_a_string() -> None:
    result = await Readability(metric="gunning_fog").run(trace_of({"text": SIMPLE_TEXT}))
    assert result.status is ERROR
    assert "must be a string" in result.message
    assert result.details["value"] == repr({"text": SIMPLE_TEXT})


async def test_readability_errors_carry_what_was_read(monkeypatch: pytest.MonkeyPatch) -> None:
    from checkspec.engine.checks import readability
    from checkspec.engine.core.jsonpath import NoMatch

    result = await Readability(target_key="trace.last.outputs.answer").run(trace_of("x"))
    assert result.status is ERROR
    assert result.details["text"] == NoMatch("trace.last.outputs.answer")

    class Broken:
        def flesch_reading_ease(self, text: str) -> float:
            raise RuntimeError("boom")

    monkeypatch.setattr(readability, "_textstat", Broken)
    result = await Readability().run(trace_of(SIMPLE_TEXT))
    assert result.status is ERROR
    assert "Failed to compute readability score" in result.message
    assert result.details["error"] == "boom" and result.details["text"] == SIMPLE_TEXT


def test_readability_min_above_max_is_rejected() -> None:
    with pytest.raises(ValidationError) as info:
        Readability(metric="gunning_fog", min_score=10, max_score=5)
    assert "min_score must be less than or equal to max_score" in str(info.value)


# --------------------------------------------------------------------------- HubMetadata

RULES = [
    {"json_path": "$.category", "expected_value": "billing", "expected_value_type": "string"},
    {"json_path": "$.score", "expected_value": 3, "expected_value_type": "number"},
    {"json_path": "$.escalated", "expected_value": False, "expected_value_type": "boolean"},
]


async def test_hub_metadata_rules_pass() -> None:
    check = HubMetadata(json_path_rules=RULES)
    assert check.metadata_key == "trace.last.outputs.metadata"
    trace = trace_of(
        {"response": "ok", "metadata": {"category": "billing", "score": 3, "escalated": False}}
    )
    result = await check.run(trace)
    assert result.status is PASS
    assert result.message == "All 3 metadata rule(s) hold."


async def test_hub_metadata_rules_fail_on_value_and_type_mismatch() -> None:
    check = HubMetadata(json_path_rules=RULES)
    trace = trace_of({"metadata": {"category": "sales", "score": "3"}})
    result = await check.run(trace)
    assert result.status is FAIL
    assert result.message.startswith("Metadata rules not met: ")
    assert "$.category: expected 'billing', got 'sales'" in result.message
    assert "$.score: expected 3, got '3'" in result.message  # a string is not a number
    assert "$.escalated: no value" in result.message


async def test_hub_metadata_missing_metadata_is_an_error() -> None:
    result = await HubMetadata(json_path_rules=RULES).run(trace_of({"response": "ok"}))
    assert result.status is ERROR
    assert "trace.last.outputs.metadata" in result.message
    assert "must return metadata" in result.message


def test_hub_metadata_rule_type_mismatch_is_rejected() -> None:
    with pytest.raises(ValidationError) as info:
        HubMetadata(
            json_path_rules=[
                {"json_path": "$.x", "expected_value": "1", "expected_value_type": "number"}
            ]
        )
    assert info.value.errors()[0]["loc"][:2] == ("json_path_rules", 0)
    assert "is not a number" in str(info.value)


# --------------------------------------------------------------------------- FnCheck


async def test_fn_check_seed_example_with_messages() -> None:
    check = FnCheck(
        fn=lambda trace: trace.last.outputs is not None,
        name="has_output",
        success_message="Output was provided",
        failure_message="No output found",
        details={"source": "seed"},
    )
    result = await check.run(trace_of("hello"))
    assert result.status is PASS
    assert result.message == "Output was provided"
    assert result.details == {"source": "seed"}

    result = await check.run(trace_of(None))
    assert result.status is FAIL
    assert result.message == "No output found"
    assert check.display_name == "has_output"


async def test_fn_check_async_function() -> None:
    async def validate_response(trace: Trace) -> bool:
        return "refund" in trace.last.outputs

    check = FnCheck(fn=validate_response, name="async_validation")
    result = await check.run(trace_of("refund in 30 days"))
    assert result.status is PASS
    assert result.message is None  # no success_message: none, as in the reference library
    result = await check.run(trace_of("no idea"))
    assert result.status is FAIL
    assert result.message is None


@pytest.mark.parametrize("returned", ["invalid", 1, None, [True]])
async def test_fn_check_returning_neither_bool_nor_result_is_an_error(returned: Any) -> None:
    check = FnCheck(fn=lambda trace: returned, name="sloppy")
    with pytest.raises(TypeError, match="must return bool or CheckResult"):
        await check.run(trace_of("x"))
    # Run in a scenario (as the CLI runs them): an ERROR naming the check, never a pass.
    scenario = Scenario("s").interact(inputs="q", outputs="x").check(check)
    result = await scenario.run(return_exception=True)
    [crashed] = result.steps[0].results
    assert crashed.errored
    assert crashed.message.startswith("Check 'sloppy' failed with error: from_fn callable")
    assert crashed.details["check_kind"] == "fn"


async def test_fn_check_returning_a_check_result() -> None:
    def custom(trace: Trace) -> CheckResult:
        return CheckResult.failure(message="custom reason", details={"n": 1})

    async def custom_async(trace: Trace) -> CheckResult:
        return CheckResult.error(message="async reason")

    result = await FnCheck(fn=custom, failure_message="ignored").run(trace_of("x"))
    assert result.status is FAIL
    assert result.message == "custom reason"
    assert result.details == {"n": 1}

    result = await FnCheck(fn=custom_async).run(trace_of("x"))
    assert result.status is ERROR
    assert result.message == "async reason"


async def test_fn_check_from_fn_constructors() -> None:
    def is_short(trace: Trace) -> bool:
        return len(trace.last.outputs) < 10

    check = FnCheck.from_fn(is_short, name="short", failure_message="too long")
    assert isinstance(check, FnCheck)
    assert check.name == "short"
    result = await check.run(trace_of("this answer is far too long"))
    assert result.status is FAIL
    assert result.message == "too long"

    check = from_fn(is_short, success_message="short enough")
    assert isinstance(check, FnCheck)
    result = await check.run(trace_of("tiny"))
    assert result.status is PASS
    assert result.message == "short enough"


async def test_fn_check_string_reference_is_resolved_only_at_run_time() -> None:
    sys.modules.pop("tests.support.lazy_fn_target", None)
    check = FnCheck(fn="tests.support.lazy_fn_target:has_output", name="lazy")
    assert "tests.support.lazy_fn_target" not in sys.modules  # construction imports nothing

    result = await check.run(trace_of("an answer"))
    assert result.status is PASS
    assert "tests.support.lazy_fn_target" in sys.modules

    result = await FnCheck(fn="tests.support.lazy_fn_target:mentions_refund").run(trace_of("no"))
    assert result.status is FAIL


async def test_fn_check_unresolvable_reference_fails_at_run_not_construction() -> None:
    check = FnCheck(fn="tests.support.lazy_fn_target:does_not_exist")
    with pytest.raises(ImportError, match="does_not_exist"):
        await check.run(trace_of("x"))


def test_fn_check_reference_shape_is_validated() -> None:
    with pytest.raises(ValidationError) as info:
        FnCheck(fn="not a reference")
    assert info.value.errors()[0]["loc"][0] == "fn"
    assert "package.module:function" in str(info.value)


# --------------------------------------------------------------------------- JSONPath


def test_resolve_paths_into_the_trace() -> None:
    trace = trace_of({"x": 1, "items": [{"a": 1}, {"a": 2}]}, {"x": 2, "items": [{"a": 3}]})
    assert resolve(trace, "trace.last.outputs") == {"x": 2, "items": [{"a": 3}]}
    assert resolve(trace, "trace.interactions[0].outputs.x") == 1
    assert resolve(trace, "trace.interactions[-1].outputs.x") == 2
    assert resolve(trace, "trace.interactions[0].outputs.items[1].a") == 2
    assert resolve(trace, "trace.last.inputs") == "question 1"


def test_resolve_wildcard_paths_return_lists() -> None:
    trace = trace_of({"x": 1, "items": [{"a": 1}, {"a": 2}]}, {"x": 2})
    assert resolve(trace, "trace.interactions[*].outputs.x") == [1, 2]
    assert resolve(trace, "trace.interactions[0].outputs.items[*].a") == [1, 2]
    assert resolve(trace, "trace.interactions[*].inputs") == ["question 0", "question 1"]


def test_resolve_wildcard_path_with_one_match_is_still_a_list() -> None:
    trace = trace_of({"items": [{"a": 3}]})
    assert resolve(trace, "trace.interactions[*].outputs") == [{"items": [{"a": 3}]}]
    assert resolve(trace, "trace.last.outputs.items[*].a") == [3]


async def test_match_any_over_wildcard_on_a_single_interaction() -> None:
    check = Equals(expected_value="yes", target_key="trace.interactions[*].outputs", match="any")
    result = await check.run(trace_of("yes"))
    assert result.status is PASS
    assert "At least one value in ['yes']" in result.message


def test_resolve_no_match() -> None:
    trace = trace_of({"x": 1})
    missing = resolve(trace, "trace.last.outputs.y")
    assert isinstance(missing, NoMatch)
    assert missing.key == "trace.last.outputs.y"
    assert str(missing) == "No match for key: trace.last.outputs.y"
    assert isinstance(resolve(trace, "trace.interactions[3].outputs"), NoMatch)
    assert isinstance(resolve(Trace(), "trace.last.outputs"), NoMatch)


def test_provided_or_resolve_and_missing() -> None:
    trace = trace_of({"x": 1})
    assert provided_or_resolve(trace, key="trace.last.outputs.x") == 1
    assert provided_or_resolve(trace, key="trace.last.outputs.x", value=9) == 9
    assert provided_or_resolve(trace, key="trace.last.outputs.x", value=None) is None
    assert provided_or_resolve(trace, value="inline") == "inline"
    assert provided_or_resolve(trace) is MISSING
    assert StringMatching(keyword="k").keyword_key is MISSING


def test_invalid_jsonpath_is_rejected_at_construction() -> None:
    with pytest.raises(ValidationError) as info:
        StringMatching(keyword="x", target_key="trace.last[")
    error = info.value.errors()[0]
    assert error["loc"] == ("target_key",)
    assert "Invalid JSONPath expression 'trace.last['" in error["msg"]


def test_jsonpath_must_start_with_trace() -> None:
    with pytest.raises(ValidationError) as info:
        Equals(expected_value=1, target_key="last.outputs")
    error = info.value.errors()[0]
    assert error["loc"] == ("target_key",)
    assert "must start with 'trace.'" in error["msg"]

    with pytest.raises(ValidationError) as info:
        Equals(expected_value_key="$.outputs", target_key="trace.last.outputs")
    assert info.value.errors()[0]["loc"] == ("expected_value_key",)
    assert "must start with 'trace.'" in info.value.errors()[0]["msg"]


# --------------------------------------------------------------------------- serialization

# One instance per registered kind that needs no LLM.
SAMPLES: dict[str, dict[str, Any]] = {
    "string_matching": {"kind": "string_matching", "keyword": "30-day", "case_sensitive": False},
    "regex_matching": {
        "kind": "regex_matching",
        "pattern": r"\d+-day",
        "target_key": "trace.last.outputs.text",
        "match_timeout_seconds": 0.5,
    },
    "equals": {"kind": "equals", "expected_value": 3.0, "name": "fee"},
    "not_equals": {"kind": "not_equals", "expected_value_key": "trace.interactions[0].outputs"},
    "greater_than": {"kind": "greater_than", "expected_value": 0.8, "match": "all"},
    "greater_than_equals": {"kind": "greater_than_equals", "expected_value": 100},
    "less_than": {"kind": "less_than", "expected_value": 500},
    "less_than_equals": {"kind": "less_than_equals", "expected_value": 1000},
    "json_valid": {"kind": "json_valid", "expected_schema": SEED_SCHEMA},
    "rego_policy": {
        "kind": "rego_policy",
        "policy": SEED_POLICY,
        "rule": "data.giskard.allow",
        "data": {"roles": ["admin"]},
    },
    "readability": {"kind": "readability", "metric": "gunning_fog", "max_score": 12},
    "hub_metadata": {"kind": "hub_metadata", "json_path_rules": RULES},
    "fn": {
        "kind": "fn",
        "fn": "tests.support.lazy_fn_target:has_output",
        "failure_message": "empty",
    },
    "all_of": {
        "kind": "all_of",
        "checks": [
            {"kind": "regex_matching", "pattern": r"\d+-day"},
            {"kind": "not", "check": {"kind": "string_matching", "keyword": "never"}},
        ],
    },
    "any_of": {
        "kind": "any_of",
        "checks": [
            {"kind": "equals", "expected_value": "yes"},
            {"kind": "equals", "expected_value": "approved"},
        ],
    },
    "not": {"kind": "not", "check": {"kind": "string_matching", "keyword": "forbidden"}},
    "tool_called": {"kind": "tool_called", "tool": "lookup_order", "arguments": {"id": "A1"}},
    "tools_in_order": {"kind": "tools_in_order", "tools": ["search", "refund"]},
    "no_span_errors": {"kind": "no_span_errors"},
    "max_model_calls": {"kind": "max_model_calls", "max_calls": 3},
}


def test_samples_cover_every_builtin_kind() -> None:
    builtin = {
        kind
        for kind, cls in Check.registry().items()
        if cls.__module__.startswith("checkspec.engine.checks.")
    }
    assert builtin == set(SAMPLES)


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_model_validate_builds_the_registered_class(kind: str) -> None:
    check = Check.model_validate(SAMPLES[kind])
    assert type(check) is Check.registry()[kind]
    assert check.kind == kind


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_model_dump_round_trips(kind: str) -> None:
    check = Check.model_validate(SAMPLES[kind])
    dumped = check.model_dump()
    assert dumped["kind"] == kind
    again = Check.model_validate(dumped)
    assert type(again) is type(check)
    assert again == check
    assert again.model_dump() == dumped


def test_nested_checks_dump_with_their_parameters() -> None:
    dumped = Check.model_validate(SAMPLES["all_of"]).model_dump()
    inner = dumped["checks"]
    assert inner[0]["pattern"] == r"\d+-day"
    assert inner[1]["check"] == {
        **inner[1]["check"],
        "kind": "string_matching",
        "keyword": "never",
    }


def test_round_trip_of_a_python_built_instance() -> None:
    check = JsonValid(key="trace.last.outputs.body", expected_schema=SEED_SCHEMA)
    dumped = check.model_dump()
    assert dumped["target_key"] == "trace.last.outputs.body"
    assert dumped["schema"] == SEED_SCHEMA  # the seed: "Serialized as schema in JSON"
    assert Check.model_validate(dumped) == check


def test_missing_fields_are_left_out_of_the_dump() -> None:
    dumped = Equals(expected_value=None).model_dump()
    assert dumped["expected_value"] is None
    assert "expected_value_key" not in dumped
    assert "match" not in dumped


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "equals", "expected_value": 1, "key": "trace.last.outputs.n"},
        {"kind": "string_matching", "keyword": "k", "text_key": "trace.last.outputs.n"},
        {"kind": "regex_matching", "pattern": "k", "text_key": "trace.last.outputs.n"},
        {"kind": "json_valid", "key": "trace.last.outputs.n"},
        {"kind": "readability", "metric": "gunning_fog", "key": "trace.last.outputs.n"},
        {
            "kind": "rego_policy",
            "policy": "package p",
            "rule": "data.p.x",
            "key": "trace.last.outputs.n",
        },
    ],
    ids=lambda d: f"{d['kind']}-{'key' if 'key' in d else 'text_key'}",
)
def test_deprecated_selector_aliases_dump_as_target_key(data: dict[str, Any]) -> None:
    check = Check.model_validate(data)
    assert type(check) is Check.registry()[data["kind"]]
    assert check.target_key == "trace.last.outputs.n"
    dumped = check.model_dump()
    assert dumped["target_key"] == "trace.last.outputs.n"
    assert "key" not in dumped
    assert "text_key" not in dumped


def test_deprecated_aliases_work_on_python_constructors() -> None:
    assert Equals(expected_value=1, key="trace.last.outputs.a").target_key == (
        "trace.last.outputs.a"
    )
    assert StringMatching(keyword="x", text_key="trace.last.outputs.b").target_key == (
        "trace.last.outputs.b"
    )


def test_target_key_and_alias_together_is_an_error() -> None:
    with pytest.raises(ValidationError) as info:
        Check.model_validate(
            {
                "kind": "equals",
                "expected_value": 1,
                "target_key": "trace.last.outputs",
                "key": "trace.last.outputs.a",
            }
        )
    message = str(info.value)
    assert "target_key" in message
    assert "key" in message
    assert "give the selector once" in message

    with pytest.raises(ValidationError) as info:
        StringMatching(keyword="x", key="trace.last.outputs", text_key="trace.last.inputs")
    assert "key, text_key" in str(info.value)


_JSON_TEXTS = [
    '{"a": 1, "b": [1, 2, {"c": null}]}',
    '"text"',
    "0",
    "-1.5e3",
    "true",
    "NaN",
    "-Infinity",
    '"\\ud800"',
    ' {"a": 1}',
    '{"a": 1} ',
    "\t[1]\n",
    '{"a": 1} x',
    '{"a": 1}{',
    "\ufeff{}",
    "",
    "   ",
    "[1, 2",
    '{"a"}',
    "01",
    "[" * 5000 + "]" * 5000,
]


@pytest.mark.parametrize("text", _JSON_TEXTS)
def test_json_valid_reads_text_exactly_as_json_loads(text: str) -> None:
    import json

    from checkspec.engine.checks.json_valid import loads

    def outcome(parse: Any) -> tuple[str, str]:
        try:
            return "value", repr(parse(text))
        except (ValueError, RecursionError) as exc:
            return type(exc).__name__, str(exc)

    assert outcome(loads) == outcome(json.loads)


def test_json_valid_reads_a_text_holding_exactly_one_value_without_json_loads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import json

    from checkspec.engine.checks import json_valid

    calls: list[str] = []
    original = json.loads

    def counted(text: str) -> Any:
        calls.append(text)
        return original(text)

    monkeypatch.setattr(json, "loads", counted)
    assert json_valid.loads('{"a": [1, 2]}') == {"a": [1, 2]}
    assert calls == []
    # Anything else is json.loads's to read or reject.
    assert json_valid.loads(' {"a": 1} ') == {"a": 1}
    with pytest.raises(json.JSONDecodeError, match="Extra data"):
        json_valid.loads("1 2")
    assert calls == [' {"a": 1} ', "1 2"]
