"""Simulated users and dataset inputs, driven through litellm against the local OpenAI stub."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from checkspec.engine import (
    DatasetInputGenerator,
    InputGenerationException,
    Interact,
    LLMGenerator,
    Scenario,
    StringMatching,
    Trace,
    UserSimulator,
    set_default_generator,
)
from checkspec.engine.judges import Generator, clear_cache
from tests.support.openai_stub import OpenAIStub, running_stub


@pytest.fixture(autouse=True)
def clean_defaults(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("CHECKSPEC_MODEL", "CHECKSPEC_API_BASE", "CHECKSPEC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    set_default_generator(None)
    clear_cache()
    yield
    set_default_generator(None)
    clear_cache()


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with running_stub() as server:
        set_default_generator(
            Generator(model="openai/user", api_base=server.base_url, api_key="k", max_retries=0)
        )
        yield server


def turn(message: Any = None, goal_reached: bool = False, schema_issue: str | None = None) -> str:
    return json.dumps(
        {"goal_reached": goal_reached, "message": message, "schema_issue": schema_issue}
    )


def agent(inputs: str) -> str:
    return f"Agent heard: {inputs}"


async def test_user_simulator_plays_turns_until_the_goal_is_reached(stub: OpenAIStub) -> None:
    stub.script(turn("I want a refund!"), turn("It arrived broken."), turn(goal_reached=True))
    scenario = (
        Scenario("refund")
        .interact(UserSimulator(persona="frustrated_customer", context="wants a refund"), agent)
        .check(StringMatching(keyword="broken"))
    )
    result = await scenario.run()
    assert result.passed, result.steps[0].results[0].message
    assert [i.inputs for i in result.final_trace.interactions] == [
        "I want a refund!",
        "It arrived broken.",
    ]
    first, second, third = stub.prompts
    assert "frustrated customer" in first and "wants a refund" in first
    assert "this is your first message" in first
    assert "Agent heard: I want a refund!" in second  # the conversation so far
    assert "Agent heard: It arrived broken." in third
    assert "goal_reached" in first  # the answer format is part of the request


async def test_user_simulator_stops_after_max_steps(stub: OpenAIStub) -> None:
    stub.chat = lambda body: turn("again?")
    spec = Interact(inputs=UserSimulator(persona="impatient_user", max_steps=2), outputs=agent)
    trace = await Trace.from_interactions(spec)
    assert len(trace.interactions) == 2
    assert len(stub.chat_requests) == 2


async def test_a_persistent_schema_issue_is_an_input_generation_error(stub: OpenAIStub) -> None:
    stub.chat = lambda body: turn(schema_issue="no text field")
    scenario = Scenario("s").interact(UserSimulator(persona="x", max_retries=1), agent)
    result = await scenario.run(return_exception=True)
    assert result.errored
    error = result.steps[0].error
    assert error.exception_type == "InputGenerationException"
    assert error.message == "generation failed at turn 0 after 2 attempt(s)"
    assert len(stub.chat_requests) == 2
    with pytest.raises(InputGenerationException):
        await scenario.run()


async def test_llm_generator_with_an_inline_prompt(stub: OpenAIStub) -> None:
    stub.script(turn("Hello?"), turn(goal_reached=True))
    generator = LLMGenerator(prompt="You are a user asking about {{ nothing }} prices.")
    trace = await Trace.from_interactions(Interact(inputs=generator, outputs=agent))
    assert [i.inputs for i in trace.interactions] == ["Hello?"]
    # Plain text is not a template; the conversation so far follows it.
    assert stub.prompts[0].startswith("You are a user asking about {{ nothing }} prices.")
    assert "Agent heard: Hello?" in stub.prompts[1]


async def test_llm_generator_template_places_the_answer_format(stub: OpenAIStub) -> None:
    stub.script(turn(goal_reached=True))
    generator = LLMGenerator(
        prompt="Turns so far: {{ trace.interactions | length }}\n{{ _instr_output }}",
        as_template=True,
    )
    await Trace.from_interactions(Interact(inputs=generator, outputs=agent))
    [prompt] = stub.prompts
    assert prompt.startswith("Turns so far: 0\n")
    # Placed by the template, not appended again.
    assert prompt.count("Answer with a single JSON object") == 1


def test_llm_generator_needs_exactly_one_prompt() -> None:
    with pytest.raises(ValidationError, match="Either 'prompt' or 'prompt_path'"):
        LLMGenerator()
    with pytest.raises(ValidationError, match="Cannot provide both"):
        LLMGenerator(prompt="a", prompt_path="b")


def test_simulated_users_are_written_in_files() -> None:
    scenario = Scenario.model_validate(
        {
            "name": "refund",
            "steps": [{"interacts": [{"inputs": {"kind": "user_simulator", "persona": "x"}}]}],
        }
    )
    spec = scenario.steps[0].interacts[0]
    assert isinstance(spec.inputs, UserSimulator)
    assert Scenario.model_validate(scenario.model_dump()).model_dump() == scenario.model_dump()
    # A dict input whose kind is not an input generator's stays a literal input.
    literal = Interact(inputs={"kind": "question", "text": "hi"})
    assert literal.inputs == {"kind": "question", "text": "hi"}


class Ticket(BaseModel):
    subject: str
    body: str


def ticket_agent(inputs: Ticket) -> str:
    return f"{inputs.subject}: {inputs.body}"


async def test_dataset_input_is_the_prompt_for_a_text_target() -> None:
    trace = await Trace.from_interactions(
        Interact(inputs=DatasetInputGenerator(prompt="Where is my order?"), outputs=agent)
    )
    assert trace.last.inputs == "Where is my order?"


async def test_dataset_input_fills_a_structured_input_once_per_shape(stub: OpenAIStub) -> None:
    stub.script(json.dumps({"message": {"subject": "Question", "body": "{{prompt}}"}}))
    specs = [
        Interact(inputs=DatasetInputGenerator(prompt=text), outputs=ticket_agent)
        for text in ("Where is my order?", "Cancel it.")
    ]
    first = await Trace.from_interactions(specs[0])
    second = await Trace.from_interactions(specs[1])
    assert first.last.inputs == Ticket(subject="Question", body="Where is my order?")
    assert second.last.outputs == "Question: Cancel it."
    assert len(stub.chat_requests) == 1  # the shape is asked once, the prompt never shown
    assert "Where is my order?" not in stub.prompts[0]
    assert '"body"' in stub.prompts[0]


def test_a_simulated_user_in_a_file_is_checked_where_it_is_written() -> None:
    from checkspec.engine.spec.document import analyze

    text = (
        "name: x\nsteps:\n  - interacts:\n"
        "      - inputs: {kind: user_simulator, persona: frustrated_customer, max_step: 2}\n"
    )
    [problem] = analyze(text, "t.scenario.yaml", None).all_problems
    assert problem.code == "unknown-parameter"
    assert problem.message == "unknown parameter 'max_step' for user_simulator"
    assert problem.range.start.line == 3
