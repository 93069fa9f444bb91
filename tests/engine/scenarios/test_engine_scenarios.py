"""Scenarios, test cases, runners, stateful checks and WithSpy, as the seed documents
describe them (testing-utilities, stateful-checks, checks-reference, docs/decisions.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any
from unittest.mock import call

import pytest
from pydantic import ValidationError

from checkspec.engine import (
    Check,
    CheckResult,
    CheckStatus,
    Equals,
    FnCheck,
    Interact,
    Interaction,
    InteractionSpec,
    Scenario,
    ScenarioResult,
    StringMatching,
    TestCase,
    TestCaseError,
    TestCaseResult,
    TestCaseRunner,
    TestCaseStatus,
    Trace,
    WithSpy,
    get_runner,
    run_scenarios,
)
from tests.support import spy_target

PASS, FAIL, ERROR, SKIP = (
    TestCaseStatus.PASS,
    TestCaseStatus.FAIL,
    TestCaseStatus.ERROR,
    TestCaseStatus.SKIP,
)


class Counter:
    """An outputs callable that counts its calls."""

    def __init__(self, answer: str = "ok") -> None:
        self.calls = 0
        self.answer = answer

    def __call__(self, inputs: Any) -> str:
        self.calls += 1
        return self.answer


def raise_value_error(*args: Any) -> Any:
    raise ValueError("boom from user code")


# --------------------------------------------------------------------------- fluent API


async def test_fluent_interactions_value_sync_async_and_two_argument_outputs() -> None:
    async def async_agent(inputs: str) -> str:
        await asyncio.sleep(0)
        return f"async answer to {inputs}"

    def with_trace(inputs: str, trace: Trace) -> str:
        return f"{inputs} after {len(trace.interactions)} turns"

    scenario = (
        Scenario("fluent")
        .interact(inputs="a", outputs="recorded A")
        .interact(inputs="b", outputs=lambda inputs: inputs.upper())
        .interact(inputs="c", outputs=async_agent)
        .interact(inputs="d", outputs=with_trace)
        .check(Equals(expected_value="recorded A", target_key="trace.interactions[0].outputs"))
        .check(Equals(expected_value="B", target_key="trace.interactions[1].outputs"))
        .check(
            Equals(expected_value="async answer to c", target_key="trace.interactions[2].outputs")
        )
        .check(Equals(expected_value="d after 3 turns", target_key="trace.last.outputs"))
    )
    assert len(scenario.steps) == 1
    result = await scenario.run()
    assert result.status is PASS, result.format_failures()
    outputs = [i.outputs for i in result.final_trace.interactions]
    assert outputs == ["recorded A", "B", "async answer to c", "d after 3 turns"]
    assert [r.status for r in result.steps[0].results] == [CheckStatus.PASS] * 4
    assert result.steps[0].last_interaction_index == 3


async def test_inputs_callable_receives_the_trace() -> None:
    scenario = (
        Scenario("inputs_fn")
        .interact(inputs="first", outputs="one")
        .interact(inputs=lambda trace: f"after {trace.last.outputs}", outputs=lambda i: i)
        .check(Equals(expected_value="after one"))
    )
    result = await scenario.run()
    assert result.passed
    assert result.final_trace.last.inputs == "after one"


async def test_check_after_interactions_starts_a_new_step() -> None:
    seen: list[int] = []

    def count_turns(trace: Trace) -> bool:
        seen.append(len(trace.interactions))
        return True

    scenario = (
        Scenario("two_steps")
        .interact(inputs="My name is Alice.", outputs="Nice to meet you, Alice.")
        .check(FnCheck(fn=count_turns, name="turn_one"))
        .interact(inputs="What is my name?", outputs="Your name is Alice.")
        .check(FnCheck(fn=count_turns, name="turn_two"))
        .check(StringMatching(keyword="Alice", target_key="trace.interactions[0].inputs"))
    )
    assert len(scenario.steps) == 2
    result = await scenario.run()
    assert result.status is PASS
    assert seen == [1, 2]
    assert [s.last_interaction_index for s in result.steps] == [0, 1]
    assert result.steps[1].check_names == ["turn_two", "string_matching"]


async def test_seed_context_retained_uses_the_trace_across_turns() -> None:
    memory: list[str] = []

    def chatbot(inputs: str) -> str:
        memory.append(inputs)
        if "name?" in inputs:
            return f"You told me: {memory[0]}"
        return "Noted."

    scenario = (
        Scenario("context_retained")
        .interact(inputs="My name is Alice.", outputs=lambda inputs: chatbot(inputs))
        .interact(inputs="What is my name?", outputs=lambda inputs: chatbot(inputs))
        .check(FnCheck(fn=lambda trace: "Alice" in trace.last.outputs, name="recalls_name"))
        .check(Equals(expected_value="Noted.", target_key="trace.interactions[0].outputs"))
    )
    result = await scenario.run()
    assert result.passed
    assert result.steps[0].results[0].message is None


async def test_scenario_result_fields() -> None:
    scenario = (
        Scenario("fields", tags=["billing"])
        .interact(inputs="hi", outputs="hello")
        .check(StringMatching(keyword="hello"))
    )
    result = await scenario.run()
    assert isinstance(result, ScenarioResult)
    assert result.scenario_name == "fields"
    assert result.status is PASS
    assert result.passed is True
    assert isinstance(result.duration_ms, int)
    assert result.duration_ms >= 0
    assert len(result.steps) == 1
    assert isinstance(result.steps[0], TestCaseResult)
    assert result.steps[0].results[0].message == "The answer contains the keyword 'hello'."
    assert isinstance(result.final_trace, Trace)
    assert result.final_trace.last == Interaction(inputs="hi", outputs="hello")
    assert result.tags == ["billing"]
    assert result.replayed is True


async def test_failing_step_stops_the_conversation() -> None:
    later = Counter("never")
    scenario = (
        Scenario("stops")
        .interact(inputs="q1", outputs="wrong")
        .check(Equals(expected_value="right"))
        .interact(inputs="q2", outputs=later)
        .check(Equals(expected_value="never"))
        .interact(inputs="q3", outputs=later)
        .check(StringMatching(keyword="x"))
    )
    result = await scenario.run()
    assert later.calls == 0
    assert result.status is FAIL
    assert [s.status for s in result.steps] == [FAIL, SKIP, SKIP]
    assert result.steps[0].results[0].message == "Expected value equal to 'right' but got 'wrong'"
    for step in result.steps[1:]:
        assert [r.status for r in step.results] == [CheckStatus.SKIP]
        assert "earlier step did not pass" in step.results[0].message
    assert len(result.final_trace.interactions) == 1
    with pytest.raises(AssertionError, match="Scenario 'stops' failed"):
        result.assert_passed()


async def test_erroring_step_stops_the_conversation() -> None:
    later = Counter()
    scenario = (
        Scenario("errors")
        .interact(inputs="q1", outputs={"a": 1})
        .check(Equals(expected_value=1, target_key="trace.last.outputs.b"))
        .interact(inputs="q2", outputs=later)
        .check(Equals(expected_value="ok"))
    )
    result = await scenario.run()
    assert later.calls == 0
    assert result.status is ERROR
    assert [s.status for s in result.steps] == [ERROR, SKIP]
    assert "trace.last.outputs.b" in result.steps[0].results[0].message


# --------------------------------------------------------------------------- serialized form


async def test_serialized_scenario_runs() -> None:
    scenario = Scenario.model_validate(
        {
            "name": "refund_policy",
            "tags": ["billing"],
            "steps": [
                {
                    "interacts": [
                        {
                            "inputs": "What is your refund policy?",
                            "outputs": "We offer a 30-day refund on unused items.",
                        }
                    ],
                    "checks": [
                        {"kind": "string_matching", "keyword": "30-day"},
                        {
                            "kind": "all_of",
                            "checks": [
                                {"kind": "regex_matching", "pattern": r"\d+-day"},
                                {
                                    "kind": "not",
                                    "check": {"kind": "string_matching", "keyword": "never"},
                                },
                            ],
                        },
                    ],
                }
            ],
        }
    )
    result = await scenario.run()
    assert result.scenario_name == "refund_policy"
    assert result.status is PASS
    assert [r.status for r in result.steps[0].results] == [CheckStatus.PASS] * 2
    assert result.steps[0].results[0].message == "The answer contains the keyword '30-day'."
    assert result.final_trace.last.outputs == "We offer a 30-day refund on unused items."


async def test_serialized_scenario_failure_is_reported() -> None:
    scenario = Scenario.model_validate(
        {
            "name": "wrong_fee",
            "steps": [
                {
                    "interacts": [{"inputs": "fee?", "outputs": {"fee_eur": 5}}],
                    "checks": [
                        {"kind": "equals", "expected_value": 3, "key": "trace.last.outputs.fee_eur"}
                    ],
                }
            ],
        }
    )
    result = await scenario.run()
    assert result.status is FAIL
    assert result.steps[0].results[0].message == "Expected value equal to 3 but got 5"


@pytest.mark.parametrize("with_kind", [True, False], ids=["kind-interact", "no-kind"])
def test_kind_interact_is_optional(with_kind: bool) -> None:
    interaction: dict[str, Any] = {"inputs": "hi", "outputs": "hello"}
    if with_kind:
        interaction["kind"] = "interact"
    scenario = Scenario.model_validate({"name": "s", "steps": [{"interacts": [interaction]}]})
    spec = scenario.steps[0].interacts[0]
    assert isinstance(spec, Interact)
    assert (spec.kind, spec.inputs, spec.outputs) == ("interact", "hi", "hello")
    assert isinstance(InteractionSpec.model_validate({"inputs": 1, "outputs": 2}), Interact)


async def test_scenario_dump_round_trips_and_runs() -> None:
    scenario = (
        Scenario("round_trip")
        .interact(inputs="hi", outputs="hello there")
        .check(StringMatching(keyword="hello"))
    )
    dumped = scenario.model_dump()
    assert dumped["steps"][0]["interacts"][0]["inputs"] == "hi"
    assert dumped["steps"][0]["checks"][0]["keyword"] == "hello"
    again = Scenario.model_validate(dumped)
    assert again.model_dump() == dumped
    result = await again.run()
    assert result.status is PASS
    assert result.steps[0].results[0].message == "The answer contains the keyword 'hello'."


# --------------------------------------------------------------------------- stateful checks


class UniquenessTracker(Check):
    """Fails if the same output is seen more than once across runs (stateful-checks seed)."""

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        self._seen: set[str] = set()

    async def run(self, trace: Trace) -> CheckResult:
        output = str(trace.last.outputs)
        if output in self._seen:
            return CheckResult.failure(
                message=f"Duplicate output detected: {output!r}",
                details={"unique_count": len(self._seen)},
            )
        self._seen.add(output)
        return CheckResult.success(
            message="Output is unique", details={"unique_count": len(self._seen)}
        )


class RefusalCounter(Check):
    """Fails if the model refuses more than `max_refusals` times (stateful-checks seed)."""

    max_refusals: int = 2

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        self._refusal_count: int = 0

    async def run(self, trace: Trace) -> CheckResult:
        output = str(trace.last.outputs).lower()
        refused = any(kw in output for kw in ["cannot", "sorry", "i'm unable", "i can't"])
        if refused:
            self._refusal_count += 1
        if self._refusal_count > self.max_refusals:
            return CheckResult.failure(
                message=(
                    f"Model has refused {self._refusal_count} times "
                    f"(max allowed: {self.max_refusals})"
                ),
                details={"refusal_count": self._refusal_count},
            )
        return CheckResult.success(
            message=f"Refusal count within limit ({self._refusal_count})",
            details={"refusal_count": self._refusal_count},
        )


@pytest.fixture
def stateful_kinds() -> Iterator[None]:
    """Register the seed's stateful checks for one test, then leave the registry clean
    (schemas and `list checks` enumerate it)."""
    Check.register("uniqueness_tracker")(UniquenessTracker)
    Check.register("refusal_counter")(RefusalCounter)
    try:
        yield
    finally:
        for kind in ("uniqueness_tracker", "refusal_counter"):
            Check.unregister(kind)


def chatbot(prompt: str) -> str:
    return "I can help with that."


async def test_uniqueness_tracker_shared_across_scenarios(stateful_kinds: None) -> None:
    tracker = UniquenessTracker(name="unique_responses")
    assert tracker.kind == "uniqueness_tracker"
    scenarios = [
        Scenario(f"test_{i}")
        .interact(inputs=f"Question {i}", outputs=lambda inputs: chatbot(inputs))
        .check(tracker)
        for i in range(3)
    ]
    results = await asyncio.gather(*(s.run() for s in scenarios))

    assert [r.passed for r in results] == [True, False, False]
    assert [r.status for r in results] == [PASS, FAIL, FAIL]
    messages = [r.steps[0].results[0].message for r in results]
    assert messages == [
        "Output is unique",
        "Duplicate output detected: 'I can help with that.'",
        "Duplicate output detected: 'I can help with that.'",
    ]
    assert [r.steps[0].results[0].details["unique_count"] for r in results] == [1, 1, 1]


async def test_fresh_tracker_per_test_passes_on_distinct_outputs(stateful_kinds: None) -> None:
    fresh_tracker = UniquenessTracker(name="unique_responses")
    scenarios = [
        Scenario(f"unique_{i}").interact(inputs=q, outputs=lambda inputs: f"Answer: {inputs}")
        for i, q in enumerate(["a", "b", "c"])
    ]
    for scenario in scenarios:
        scenario.check(fresh_tracker)
    results = await asyncio.gather(*(s.run() for s in scenarios))
    assert all(r.passed for r in results)
    assert results[-1].steps[0].results[0].details["unique_count"] == 3


async def test_refusal_counter_shared_across_scenarios(stateful_kinds: None) -> None:
    counter = RefusalCounter(name="refusals", max_refusals=1)
    assert counter.kind == "refusal_counter"
    scenarios = [
        Scenario(f"refusal_{i}")
        .interact(inputs=f"Question {i}", outputs="Sorry, I cannot help with that.")
        .check(counter)
        for i in range(3)
    ]
    results = await asyncio.gather(*(s.run() for s in scenarios))
    assert [r.status for r in results] == [PASS, FAIL, FAIL]
    assert [r.steps[0].results[0].message for r in results] == [
        "Refusal count within limit (1)",
        "Model has refused 2 times (max allowed: 1)",
        "Model has refused 3 times (max allowed: 1)",
    ]


async def test_refusal_counter_default_threshold(stateful_kinds: None) -> None:
    counter = RefusalCounter()
    assert counter.max_refusals == 2
    answers = ["I can't do that.", "Here you go.", "I'm unable to help.", "Sorry, no."]
    scenarios = [
        Scenario(f"r{i}").interact(inputs="q", outputs=a).check(counter)
        for i, a in enumerate(answers)
    ]
    results = await asyncio.gather(*(s.run() for s in scenarios))
    assert [r.status for r in results] == [PASS, PASS, PASS, FAIL]
    assert results[2].steps[0].results[0].message == "Refusal count within limit (2)"
    assert results[3].steps[0].results[0].details == {"refusal_count": 3}


def test_stateful_kind_is_built_from_its_identifier(stateful_kinds: None) -> None:
    check = Check.model_validate({"kind": "refusal_counter", "max_refusals": 4})
    assert isinstance(check, RefusalCounter)
    assert check.max_refusals == 4


# --------------------------------------------------------------------------- TestCase

FEE_TRACE = Trace(
    interactions=[
        Interaction(
            inputs="What is the monthly fee on my current account?",
            outputs={"intent": "fee_enquiry", "fee_eur": 3.00},
        ),
        Interaction(
            inputs="And to replace a lost card?",
            outputs={"intent": "fee_enquiry", "fee_eur": 0.00},
        ),
    ]
)


async def test_fee_enquiry_replay_seed_example() -> None:
    test_case = TestCase(
        name="fee_enquiry_replay",
        trace=FEE_TRACE,
        checks=[
            Equals(expected_value=3.00, target_key="trace.interactions[0].outputs.fee_eur"),
            Equals(expected_value=0.00, target_key="trace.interactions[1].outputs.fee_eur"),
        ],
    )
    result = await test_case.run()
    assert isinstance(result, TestCaseResult)
    assert result.status is PASS
    assert result.passed and not result.failed and not result.errored and not result.skipped
    assert [r.message for r in result.results] == [
        "The actual value 3.0 is equal to the expected value 3.0.",
        "The actual value 0.0 is equal to the expected value 0.0.",
    ]
    assert result.last_interaction_index == 1
    assert result.error is None
    await test_case.assert_passed()
    result.assert_passed()


async def test_fee_enquiry_replay_with_a_wrong_fee_fails() -> None:
    test_case = TestCase(
        name="fee_enquiry_replay",
        trace=FEE_TRACE,
        checks=[Equals(expected_value=2.50, target_key="trace.interactions[0].outputs.fee_eur")],
    )
    result = await test_case.run()
    assert result.status is FAIL
    assert result.failed
    assert result.results[0].message == "Expected value equal to 2.5 but got 3.0"


def follow_up_test_case(answer: str) -> TestCase:
    trace = Trace(
        interactions=[Interaction(inputs="Something is wrong with my account.", outputs=answer)]
    )
    return TestCase(
        name="asks_a_follow_up",
        trace=trace,
        checks=[
            FnCheck(
                fn=lambda t: t.last is not None and "?" in t.last.outputs,
                name="asks_a_follow_up",
            ),
        ],
    )


async def test_vague_question_gets_a_follow_up() -> None:
    await follow_up_test_case(
        "Sorry to hear that. Is it a payment, a card, or the balance?"
    ).assert_passed()


async def test_assert_passed_failure_names_the_check_and_its_message() -> None:
    test_case = follow_up_test_case("Sorry to hear that.")
    with pytest.raises(AssertionError) as info:
        await test_case.assert_passed()
    message = str(info.value)
    assert "asks_a_follow_up" in message
    assert "asks_a_follow_up FAILED: No specific error message provided" in message
    # The reference library's wording (TestCaseResult.assert_passed).
    assert message.startswith("Test case failed with the following errors:\n")


async def test_recorded_replay_seed_example() -> None:
    recorded = [
        Interaction(inputs="Find item 42", outputs="Item found."),
        Interaction(inputs="Who created it?", outputs="Alex created it."),
    ]
    test_case = TestCase(
        name="recorded_replay",
        trace=Trace(interactions=recorded),
        checks=[
            FnCheck(fn=lambda t: "found" in t.interactions[0].outputs.lower(), name="finds_item"),
            FnCheck(fn=lambda t: "Alex" in t.interactions[1].outputs, name="returns_creator"),
        ],
    )
    await test_case.assert_passed()

    test_cases = [
        TestCase(
            name=f"replay_{i}",
            trace=Trace(interactions=[interaction]),
            checks=[FnCheck(fn=lambda t: bool(t.last.outputs), name="answered")],
        )
        for i, interaction in enumerate([*recorded, Interaction(inputs="?", outputs="")])
    ]
    results = await asyncio.gather(*[tc.run() for tc in test_cases])
    assert [r.passed for r in results] == [True, True, False]


@pytest.mark.parametrize(("question", "required_keyword"), [("Hello", "Received")])
async def test_answers_include_keyword(question: str, required_keyword: str) -> None:
    trace = Trace(interactions=[Interaction(inputs=question, outputs=f"Received: {question}")])
    test_case = TestCase(
        name=f"keyword_{required_keyword}",
        trace=trace,
        checks=[
            StringMatching(
                keyword=required_keyword.upper(),
                target_key="trace.last.outputs",
                case_sensitive=False,
            )
        ],
    )
    await test_case.assert_passed()


# --------------------------------------------------------------------------- statuses


def results_of(*statuses: str) -> list[CheckResult]:
    make = {
        "pass": CheckResult.success,
        "fail": CheckResult.failure,
        "error": CheckResult.error,
        "skip": CheckResult.skip,
    }
    return [make[s](f"{s} result") for s in statuses]


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        ((), PASS),
        (("pass",), PASS),
        (("pass", "skip"), PASS),
        (("skip", "skip"), SKIP),
        (("pass", "fail"), FAIL),
        (("skip", "fail"), FAIL),
        (("fail", "error"), ERROR),
        (("pass", "error", "skip"), ERROR),
    ],
    ids=lambda v: "-".join(v) if isinstance(v, tuple) else str(v),
)
def test_test_case_result_status_rules(statuses: tuple[str, ...], expected: Any) -> None:
    result = TestCaseResult(results=results_of(*statuses))
    assert result.status is expected
    assert result.passed is (expected is PASS)
    assert result.failed is (expected is FAIL)
    assert result.errored is (expected is ERROR)
    assert result.skipped is (expected is SKIP)


def test_error_makes_the_test_case_an_error_even_when_checks_pass() -> None:
    error = TestCaseError(message="no input", exception_type="RuntimeError", phase="inputs")
    result = TestCaseResult(results=results_of("pass"), error=error)
    assert result.status is ERROR
    assert "Test case ERRORED: RuntimeError during inputs: no input" in result.format_failures()


def test_test_case_status_values() -> None:
    assert [s.value for s in (PASS, FAIL, ERROR, SKIP)] == ["pass", "fail", "error", "skip"]
    assert TestCaseStatus("fail") is FAIL


def test_test_case_error_summary_format() -> None:
    with_phase = TestCaseError(message="bad", exception_type="ValueError", phase="interaction")
    assert with_phase.summary() == "ValueError during interaction: bad"
    without = TestCaseError(message="bad", exception_type="KeyError")
    assert without.summary() == "KeyError: bad"
    assert without.traceback is None and without.phase is None


# --------------------------------------------------------------------------- runner


async def test_get_runner_is_a_singleton_that_runs_test_cases() -> None:
    runner = get_runner()
    assert isinstance(runner, TestCaseRunner)
    assert get_runner() is runner
    test_case = TestCase(
        name="runner",
        trace=Trace(interactions=[Interaction(inputs="q", outputs="fine")]),
        checks=[StringMatching(keyword="fine"), StringMatching(keyword="great")],
    )
    result = await runner.run(test_case)
    assert result.status is FAIL
    assert [r.status for r in result.results] == [CheckStatus.PASS, CheckStatus.FAIL]
    assert result.check_names == ["string_matching", "string_matching"]
    assert result.format_failures() == [
        "string_matching FAILED: The answer does not contain the keyword 'great'"
    ]
    again = await TestCaseRunner().run(test_case)
    assert [r.message for r in again.results] == [r.message for r in result.results]
    assert (await test_case.run()).status is FAIL


# --------------------------------------------------------------------------- return_exception

RAISING_CHECK = FnCheck(fn=raise_value_error, name="raiser")


async def test_raising_check_propagates_from_test_case_by_default() -> None:
    test_case = TestCase(
        trace=Trace(interactions=[Interaction(inputs="q", outputs="a")]),
        checks=[RAISING_CHECK],
    )
    with pytest.raises(ValueError, match="boom from user code"):
        await test_case.run()
    with pytest.raises(ValueError, match="boom from user code"):
        await get_runner().run(test_case)


async def test_raising_check_with_return_exception_is_an_error_result() -> None:
    test_case = TestCase(
        trace=Trace(interactions=[Interaction(inputs="q", outputs="a")]),
        checks=[RAISING_CHECK, StringMatching(keyword="a")],
    )
    result = await test_case.run(return_exception=True)
    assert result.status is ERROR
    assert [r.status for r in result.results] == [CheckStatus.ERROR, CheckStatus.PASS]
    # As the reference runner: an ERROR result naming the check, with the exception's
    # type, traceback, and the check's kind and name in its details; the step ran, so
    # the test case itself has no error.
    crashed = result.results[0]
    assert crashed.message == "Check 'raiser' failed with error: boom from user code"
    assert crashed.details["exception_type"] == "ValueError"
    assert "raise_value_error" in crashed.details["traceback"]
    assert crashed.details["check_kind"] == "fn"
    assert crashed.details["check_name"] == "raiser"
    assert result.error is None
    assert result.format_failures() == [
        "raiser ERRORED: Check 'raiser' failed with error: boom from user code"
    ]


async def test_raising_check_propagates_from_scenario_by_default() -> None:
    scenario = Scenario("raising_check").interact(inputs="q", outputs="a").check(RAISING_CHECK)
    with pytest.raises(ValueError, match="boom from user code"):
        await scenario.run()

    result = await scenario.run(return_exception=True)
    assert result.status is ERROR
    step = result.steps[0]
    assert step.results[0].status is CheckStatus.ERROR
    assert "boom from user code" in step.results[0].message
    assert "Traceback" in step.results[0].details["traceback"]
    assert step.error is None


async def test_raising_outputs_callable_propagates_or_becomes_an_error() -> None:
    later = Counter()
    scenario = (
        Scenario("raising_outputs")
        .interact(inputs="q", outputs=raise_value_error)
        .check(StringMatching(keyword="x"))
        .interact(inputs="q2", outputs=later)
        .check(StringMatching(keyword="ok"))
    )
    with pytest.raises(ValueError, match="boom from user code"):
        await scenario.run()

    result = await scenario.run(return_exception=True)
    assert result.status is ERROR
    assert [s.status for s in result.steps] == [ERROR, SKIP]
    first = result.steps[0]
    assert first.error.exception_type == "ValueError"
    assert first.error.message == "boom from user code"
    assert first.error.phase == "input_generation"
    assert first.error.traceback and "raise_value_error" in first.error.traceback
    assert [r.status for r in first.results] == [CheckStatus.SKIP]
    assert later.calls == 0
    assert result.final_trace.interactions == []


# --------------------------------------------------------------------------- run_scenarios


async def test_run_scenarios_keeps_order_under_concurrency() -> None:
    running = 0
    peak = 0

    def slow_agent(delay: float) -> Any:
        async def agent(inputs: str) -> str:
            nonlocal running, peak
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(delay)
            running -= 1
            return f"answer {inputs}"

        return agent

    delays = [0.05, 0.01, 0.03, 0.0, 0.02]
    scenarios = [
        Scenario(f"s{i}")
        .interact(inputs=str(i), outputs=slow_agent(d))
        .check(Equals(expected_value=f"answer {i}"))
        for i, d in enumerate(delays)
    ]
    scenarios[2].check(Equals(expected_value="nope"))
    results = await run_scenarios(scenarios, concurrency=2)
    assert [r.scenario_name for r in results] == [f"s{i}" for i in range(5)]
    assert [r.status for r in results] == [PASS, PASS, FAIL, PASS, PASS]
    assert [r.final_trace.last.outputs for r in results] == [f"answer {i}" for i in range(5)]
    assert peak == 2


async def test_run_scenarios_returns_exceptions_as_errors_by_default() -> None:
    scenarios = [
        Scenario("ok").interact(inputs="q", outputs="a").check(Equals(expected_value="a")),
        Scenario("bad").interact(inputs="q", outputs=raise_value_error),
    ]
    results = await run_scenarios(scenarios, concurrency=1)
    assert [r.status for r in results] == [PASS, ERROR]
    assert results[1].steps[0].error.exception_type == "ValueError"


# --------------------------------------------------------------------------- WithSpy


async def test_with_spy_records_calls_of_the_patched_function() -> None:
    interaction_spec = Interact(inputs="Find item 42", outputs=spy_target.answer)
    spied_spec = WithSpy(
        interaction_generator=interaction_spec,
        target="tests.support.spy_target.fetch_item",
    )
    result = await Scenario("dependency_call").add_interaction(spied_spec).run()

    assert result.status is PASS
    last = result.final_trace.last
    assert last.outputs == "Looked up item 42."
    spy_data = last.metadata.get("tests.support.spy_target.fetch_item")
    assert spy_data is not None
    assert spy_data["call_count"] == 1
    assert spy_data["call_args"] == call("42")
    assert spy_data["call_args_list"] == [call("42")]
    assert spy_data["mock_calls"] == [call("42")]
    # The real function is back once the interaction is done.
    assert spy_target.fetch_item("7") == {"id": "7", "name": "item 7"}


async def test_with_spy_from_the_serialized_form_with_a_python_target() -> None:
    scenario = Scenario.model_validate(
        {
            "name": "spied",
            "target": "python:tests.support.spy_target:answer",
            "steps": [
                {
                    "interacts": [
                        {
                            "kind": "with_spy",
                            "target": "tests.support.spy_target.fetch_item",
                            "interaction_generator": {"inputs": "Find item 7"},
                        },
                        {"inputs": "Nothing to find"},
                    ],
                    "checks": [
                        {
                            "kind": "equals",
                            "expected_value": 1,
                            "target_key": (
                                "trace.interactions[0].metadata"
                                "['tests.support.spy_target.fetch_item'].call_count"
                            ),
                        }
                    ],
                }
            ],
        }
    )
    result = await scenario.run()
    assert result.status is PASS, result.format_failures()
    first, second = result.final_trace.interactions
    assert first.outputs == "Looked up item 7."
    assert first.metadata["tests.support.spy_target.fetch_item"]["call_args"] == call("7")
    assert "tests.support.spy_target.fetch_item" not in second.metadata
    assert result.replayed is False


def test_with_spy_constructor_needs_no_kind() -> None:
    spied = WithSpy(
        interaction_generator=Interact(inputs="Find item 42", outputs=spy_target.answer),
        target="tests.support.spy_target.fetch_item",
    )
    assert spied.kind == "with_spy"
    assert isinstance(spied.interaction_generator, Interact)
    explicit = WithSpy(
        kind="with_spy",
        interaction_generator=Interact(inputs="Find item 42", outputs=spy_target.answer),
        target="tests.support.spy_target.fetch_item",
    )
    assert explicit == spied


def test_with_spy_dump_round_trips() -> None:
    spied = WithSpy(
        kind="with_spy",
        interaction_generator=Interact(inputs="Find item 42", outputs="recorded"),
        target="tests.support.spy_target.fetch_item",
    )
    dumped = spied.model_dump()
    assert dumped["interaction_generator"]["inputs"] == "Find item 42"
    assert InteractionSpec.model_validate(dumped) == spied


def test_with_spy_rejects_a_trace_jsonpath_target() -> None:
    with pytest.raises(ValidationError) as info:
        InteractionSpec.model_validate(
            {
                "kind": "with_spy",
                "interaction_generator": {"inputs": "x", "outputs": "y"},
                "target": "trace.last.outputs",
            }
        )
    error = info.value.errors()[0]
    assert error["loc"] == ("target",)
    assert "Python import path" in error["msg"]
    assert "unittest.mock.patch" in error["msg"]
    assert "'trace.last.outputs'" in error["msg"]

    with pytest.raises(ValidationError, match="Python import path"):
        WithSpy(
            interaction_generator=Interact(inputs="x", outputs="y"),
            target="trace.last.outputs",
        )
