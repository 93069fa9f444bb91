"""The reference library's Python API, behaviour by behaviour (giskard-checks 1.0.6).

Each test is something code written for the original does; the expected values were
checked against giskard-checks 1.0.6 itself where the behaviour is observable.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncGenerator, Generator
from typing import Any

import pytest
from pydantic import ValidationError

from checkspec.engine import (
    MISSING,
    Check,
    CheckResult,
    CheckStatus,
    Equals,
    FnCheck,
    Interact,
    Interaction,
    InteractionGenerationError,
    InteractionSpec,
    LLMJudge,
    Readability,
    Scenario,
    ScenarioRunner,
    SemanticSimilarity,
    Step,
    StringMatching,
    Target,
    TestCase,
    TestCaseResult,
    Trace,
    run_sync,
)

# -- generics ----------------------------------------------------------------------------


def test_models_take_the_reference_type_parameters() -> None:
    trace = Trace[str, str](interactions=[Interaction(inputs="q", outputs="a")])
    assert trace.last == Interaction(inputs="q", outputs="a")
    with pytest.raises(ValidationError):  # parameters are enforced, as pydantic does
        Trace[str, str](interactions=[Interaction(inputs=1, outputs="a")])
    for cls, arguments in [
        (Check, (str, str, Trace)),
        (Scenario, (str, str, Trace[str, str])),
        (Step, (str, str, Trace)),
        (TestCase, (str, str, Trace)),
        (InteractionSpec, (str, str, Trace)),
        (LLMJudge, (str, str, Trace)),
        (SemanticSimilarity, (str, str, Trace)),
        (Equals, (str, str, Trace, int)),  # comparisons: the expected value's type too
    ]:
        assert issubclass(cls[arguments], cls)
    assert Target.__type_params__ and Target[str, str, Trace] is not None


def test_a_parametrized_check_keeps_its_kind_and_round_trips() -> None:
    check = Equals[str, str, Trace, int](expected_value=1)
    assert check.kind == "equals"
    again = Check.model_validate(check.model_dump())
    assert isinstance(again, Equals) and again.expected_value == 1
    assert isinstance(Check[str, str, Trace].model_validate(check.model_dump()), Equals)
    # A field typed with a parametrized family accepts any member of it.
    step = Step[str, str, Trace](checks=[StringMatching(keyword="a")])
    assert isinstance(step.checks[0], StringMatching)


def test_unregistered_subclasses_validate_themselves() -> None:
    class Custom(Check[str, str, Trace]):
        threshold: int = 1

        async def run(self, trace: Trace) -> CheckResult:
            return CheckResult.success("ok")

    assert Custom(threshold=2).threshold == 2
    assert Custom.model_validate(Custom().model_dump()).threshold == 1


# -- trace and interaction specs ------------------------------------------------------------


async def test_trace_builds_from_interactions_and_specs() -> None:
    trace = await Trace.from_interactions(
        Interaction(inputs="a", outputs="1"), Interact(inputs="b", outputs="2")
    )
    assert [i.inputs for i in trace.interactions] == ["a", "b"]
    longer = await trace.with_interactions(Interaction(inputs="c", outputs="3"))
    assert len(longer.interactions) == 3 and len(trace.interactions) == 2
    typed = await Trace[str, str].from_interactions(Interaction(inputs="a", outputs="1"))
    assert type(typed) is Trace[str, str]


async def test_interact_generate_is_an_async_generator_receiving_the_trace() -> None:
    def inputs(trace: Trace) -> Generator[int, Trace, None]:
        trace = yield 1
        yield trace.last.outputs + 1

    spec = Interact(inputs=inputs, outputs=lambda inputs: inputs * 10)
    generator = spec.generate(Trace())
    first = await anext(generator)
    assert first == Interaction(inputs=1, outputs=10)
    second = await generator.asend(Trace(interactions=[first]))
    assert second == Interaction(inputs=11, outputs=110)
    with pytest.raises(StopAsyncIteration):
        await generator.asend(Trace(interactions=[first, second]))


async def test_inputs_from_an_async_generator_play_several_turns() -> None:
    async def questions(trace: Trace) -> AsyncGenerator[str, Trace]:
        for n in range(3):
            trace = yield f"q{n} after {len(trace.interactions)}"

    result = await Scenario("turns").interact(questions, lambda inputs: inputs.upper()).run()
    assert [i.outputs for i in result.final_trace.interactions] == [
        "Q0 AFTER 0",
        "Q1 AFTER 1",
        "Q2 AFTER 2",
    ]


async def test_callables_get_values_by_name_or_else_by_position() -> None:
    seen: list[Any] = []

    def by_name(trace: Trace, inputs: str) -> str:  # names, in any order
        seen.append((inputs, len(trace.interactions)))
        return "named"

    def positional(question: str) -> str:  # not a reference name: the inputs
        seen.append(question)
        return "positional"

    trace = await Trace.from_interactions(
        Interact(inputs="a", outputs=by_name), Interact(inputs="b", outputs=positional)
    )
    assert seen == [("a", 0), "b"]
    assert [i.outputs for i in trace.interactions] == ["named", "positional"]


async def test_a_failing_spec_keeps_the_progress_made() -> None:
    class Failing(InteractionSpec[str, str, Trace]):
        async def generate(self, trace: Trace) -> AsyncGenerator[Interaction, Trace]:
            yield Interaction(inputs="first", outputs="ok")
            raise RuntimeError("broken")

    with pytest.raises(InteractionGenerationError) as info:
        await Trace().with_interactions(Interaction(inputs="before", outputs="ok"), Failing())
    assert [i.inputs for i in info.value.partial_trace.interactions] == ["before", "first"]
    assert str(info.value.__cause__) == "broken"

    result = await Scenario("s").add_interaction(Failing()).run(return_exception=True)
    assert result.errored
    assert len(result.final_trace.interactions) == 1  # the partial trace, not an empty one
    assert result.steps[0].error.message == "broken"
    # As 1.0.6 records it: the phase, and the last interaction the step did add.
    assert result.steps[0].error.phase == "input_generation"
    assert result.steps[0].last_interaction_index == 0
    assert result.steps[0].error.summary() == "RuntimeError during interaction: broken"


class MyTrace(Trace[str, str]):
    """A custom trace type (module level: annotations are resolved by name)."""


def agent_with_my_trace(inputs: str, trace: MyTrace) -> str:
    return inputs


def test_for_target_builds_the_trace_type_the_target_asks_for() -> None:
    assert type(Trace.for_target(agent_with_my_trace)) is MyTrace
    assert type(Trace.for_target(lambda inputs: inputs)) is Trace


def test_set_outputs_binds_a_target() -> None:
    spec = Interact(inputs="q")
    assert spec.outputs is MISSING
    assert spec.set_outputs("a") is spec and spec.outputs == "a"


# -- scenarios -----------------------------------------------------------------------------


def test_scenario_fluent_api_of_the_reference() -> None:
    check = StringMatching(keyword="a")
    scenario = (
        Scenario("s")
        .add_interactions(Interact(inputs="1", outputs="a"), Interact(inputs="2", outputs="a"))
        .append(check)
        .append(Interact(inputs="3", outputs="b"))
        .with_tags(["Category:Billing"])
        .with_annotations({"user": "alice"})
    )
    assert [len(s.interacts) for s in scenario.steps] == [2, 1]
    assert scenario.steps[0].checks == [check]
    assert scenario.tags == ["Category:Billing"]
    assert scenario.annotations == {"user": "alice"}
    assert scenario.target is MISSING and scenario.replays
    assert scenario.multiple_runs == 1 and scenario.trace_type is None


async def test_multiple_runs_repeat_while_every_run_passes() -> None:
    calls: list[int] = []

    def agent(inputs: str) -> str:
        calls.append(1)
        return "ok" if len(calls) < 3 else "broken"

    scenario = (
        Scenario("s", multiple_runs=5).interact("q", agent).check(Equals(expected_value="ok"))
    )
    result = await scenario.run()
    assert (result.failed, result.runs_executed, result.multiple_runs) == (True, 3, 5)
    calls.clear()
    result = await scenario.run(multiple_runs=2)  # the argument overrides the field
    assert (result.passed, result.runs_executed, result.multiple_runs) == (True, 2, 2)
    with pytest.raises(ValueError, match="multiple_runs must be greater than or equal to 1"):
        await scenario.run(multiple_runs=0)
    with pytest.raises(ValidationError):
        Scenario("s", multiple_runs=0)


async def test_trace_type_is_the_run_trace_class() -> None:
    class Shouty(Trace[str, str]):
        @property
        def shout(self) -> str:
            return str(self.last.outputs).upper() if self.last else ""

    scenario = (
        Scenario("s", trace_type=Shouty)
        .interact("q", "hello")
        .check(FnCheck(fn=lambda trace: trace.shout == "HELLO"))
    )
    result = await scenario.run()
    assert result.passed and type(result.final_trace) is Shouty


async def test_run_takes_the_target_positionally_and_the_runner_too() -> None:
    scenario = Scenario("s").interact("q").check(Equals(expected_value="Q"))
    assert (await scenario.run(str.upper)).passed
    assert (await ScenarioRunner().run(scenario, str.upper, False, 2)).runs_executed == 2


def test_run_sync_from_synchronous_code() -> None:
    scenario = Scenario("s").interact("q", "a").check(Equals(expected_value="a"))
    assert scenario.run_sync().passed
    case = TestCase(trace=Trace(interactions=[Interaction(inputs="q", outputs="a")]), checks=[])
    assert case.run_sync().passed
    with pytest.raises(ValueError, match="boom"):
        run_sync(_raise_value_error)


async def _raise_value_error() -> None:
    raise ValueError("boom")


async def test_run_sync_refuses_to_block_a_running_loop() -> None:
    scenario = Scenario("s").interact("q", "a")
    with pytest.raises(RuntimeError, match=r"use await obj\.run\(\.\.\.\) instead"):
        scenario.run_sync()
    await asyncio.sleep(0)


# -- results and messages -----------------------------------------------------------------


def test_format_failures_and_assert_passed_use_the_reference_texts() -> None:
    result = TestCaseResult(
        results=[
            CheckResult.success(message="fine"),
            CheckResult.failure(message="wrong", details={"check_name": "named"}),
            CheckResult.error(details={"check_kind": "equals"}),
            CheckResult.skip(message="later"),
        ],
        duration_ms=1,
    )
    assert result.format_failures() == [
        "named FAILED: wrong",
        "equals ERRORED: No specific error message provided",
        "Unknown check SKIPPED: later",
    ]
    with pytest.raises(AssertionError) as info:
        result.assert_passed()
    assert str(info.value) == (
        "Test case failed with the following errors:\n" + "\n".join(result.format_failures())
    )


def test_exactly_one_errors_use_the_reference_text() -> None:
    with pytest.raises(ValidationError, match="Exactly one of 'keyword' or 'keyword_key'"):
        StringMatching()
    with pytest.raises(
        ValidationError, match="Exactly one of 'expected_value' or 'expected_value_key'"
    ):
        Equals(expected_value=1, expected_value_key="trace.last.outputs")
    with pytest.raises(ValidationError, match="Either 'prompt' or 'prompt_path' must be provided"):
        LLMJudge()
    with pytest.raises(ValidationError, match="Cannot provide both 'prompt' and 'prompt_path'"):
        LLMJudge(prompt="a", prompt_path="b")


async def test_error_results_name_their_check() -> None:
    check = Equals(expected_value=1, target_key="trace.last.outputs.missing", name="n")
    result = await Scenario("s").interact("q", {"a": 1}).check(check).run()
    [error] = result.steps[0].results
    assert error.errored
    assert (error.details["check_kind"], error.details["check_name"]) == ("equals", "n")
    assert error.details["actual_value"].key == "trace.last.outputs.missing"


async def test_readability_defaults_to_flesch_reading_ease() -> None:
    check = Readability()
    assert check.metric == "flesch_reading_ease"
    trace = Trace(interactions=[Interaction(inputs="q", outputs="The cat sat on the mat.")])
    result = await check.run(trace)
    assert result.passed and result.metrics[0].name == "flesch_reading_ease"


def test_check_to_spec_is_the_configuration_without_labels() -> None:
    spec = Equals(expected_value=3, name="n", description="d").to_spec()
    assert spec["kind"] == "equals" and spec["expected_value"] == 3
    assert "name" not in spec and "description" not in spec
    assert Check.kinds() >= {"equals", "llm_judge", "semantic_similarity"}


# -- modules -------------------------------------------------------------------------------


def test_the_reference_module_paths_resolve() -> None:
    for path, name in [
        ("builtin", "StringMatching"),
        ("builtin.text_matching", "RegexMatching"),
        ("builtin.comparison", "GreaterThan"),
        ("builtin.semantic_similarity", "cosine_similarity"),
        ("judges", "Groundedness"),
        ("judges.base", "LLMCheckResult"),
        ("core.result", "SuiteResult"),
        ("core.extraction", "resolve"),
        ("core.interaction", "Trace"),
        ("core.scenario", "Scenario"),
        ("core.mixin", "WithJudgeMixin"),
        ("core.judge", "SOMJudge"),
        ("scenarios.suite", "Suite"),
        ("scenarios.runner", "ScenarioRunner"),
        ("generators.user", "UserSimulator"),
        ("export.junit", "to_junit_xml"),
        ("settings", "set_default_generator"),
    ]:
        module = importlib.import_module(f"checkspec.engine.{path}")
        assert hasattr(module, name), (path, name)


def test_the_package_is_typed() -> None:
    from importlib.resources import files

    assert files("checkspec.engine").joinpath("py.typed").is_file()


async def test_a_step_without_checks_that_did_not_run_is_one_skip_named_step() -> None:
    failing = Equals(expected_value="a", target_key="trace.last.outputs")
    scenario = Scenario("s").interact("a", "b").check(failing).interact("c", "c")
    result = await scenario.run()
    skipped = result.steps[1]
    assert [r.status for r in skipped.results] == [CheckStatus.SKIP]
    assert skipped.results[0].details == {"check_kind": "step", "check_name": "step"}


async def test_a_failing_interaction_is_raised_with_its_own_context() -> None:
    class Failing(InteractionSpec[str, str, Trace]):
        async def generate(self, trace: Trace) -> AsyncGenerator[Interaction, Trace]:
            yield Interaction(inputs="first", outputs="ok")
            try:
                {}["missing"]
            except KeyError:
                raise RuntimeError("broken")  # noqa: B904 (chained to the KeyError on purpose)

    with pytest.raises(RuntimeError, match="broken") as info:
        await Scenario("s").add_interaction(Failing()).run()
    # Its context is what it was raised in (the KeyError), not the wrapper that carried it.
    assert isinstance(info.value.__context__, KeyError)
