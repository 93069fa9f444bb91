"""A dataset prompt placed into a structured input: the placeholder found in every kind of
container (models, mappings, lists, tuples, sets), a template without one refused, the
model's answer holding exactly one of message / schema_issue, a schema the model cannot
template said as an error, and concurrent scenarios of one shape asking the model once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from pydantic import BaseModel, ValidationError

from checkspec.engine import DatasetInputGenerator, set_default_generator
from checkspec.engine.generators.dataset import MappingTemplate, substitute_prompt
from checkspec.engine.judges import Generator, clear_cache
from tests.support.openai_stub import OpenAIStub, running_stub


class Address(BaseModel):
    city: str
    lines: list[str]


class Letter(BaseModel):
    to: Address
    body: str
    tags: tuple[str, ...] = ()


def test_the_placeholder_is_replaced_in_nested_models_mappings_and_sequences() -> None:
    template = Letter(
        to=Address(city="Paris", lines=["1 rue {{prompt}}", "no placeholder"]),
        body="Dear {{prompt}}, hello",
        tags=("{{prompt}}", "fixed"),
    )
    filled = substitute_prompt(template, "Ana")
    assert filled == Letter(
        to=Address(city="Paris", lines=["1 rue Ana", "no placeholder"]),
        body="Dear Ana, hello",
        tags=("Ana", "fixed"),
    )
    assert template.body == "Dear {{prompt}}, hello"  # a copy: the template is kept
    nested = {"meta": {"who": "{{prompt}}", "n": 3}, "seen": {"{{prompt}}"}, "raw": b"{{prompt}}"}
    assert substitute_prompt(nested, "Bo") == {
        "meta": {"who": "Bo", "n": 3},
        "seen": {"Bo"},
        "raw": b"{{prompt}}",  # bytes are no text to fill
    }


def test_a_template_without_the_placeholder_is_refused() -> None:
    with pytest.raises(ValueError, match=r"contains no '\{\{prompt\}\}' placeholder"):
        substitute_prompt({"subject": "Hi", "lines": ["a", "b"], "n": 1}, "lost prompt")


@pytest.mark.parametrize(
    "answer", [{}, {"message": {"body": "{{prompt}}"}, "schema_issue": "and a reason"}]
)
def test_the_models_answer_holds_exactly_one_of_message_and_schema_issue(answer: dict) -> None:
    with pytest.raises(ValidationError, match="Exactly one of 'message' / 'schema_issue'"):
        MappingTemplate[dict].model_validate(answer)
    assert MappingTemplate[dict].model_validate({"schema_issue": "no text"}).message is None


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIStub]:
    for name in ("CHECKSPEC_MODEL", "CHECKSPEC_API_BASE", "CHECKSPEC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    clear_cache()
    with running_stub() as server:
        set_default_generator(
            Generator(model="openai/user", api_base=server.base_url, api_key="k", max_retries=0)
        )
        try:
            yield server
        finally:
            set_default_generator(None)
            clear_cache()


class Invoice(BaseModel):  # a shape of these tests only: the template cache is per shape
    number: int
    amount_cents: int


class Memo(BaseModel):
    note: str
    author: str


async def first_input(generator: DatasetInputGenerator, input_type: type) -> object:
    async for value in generator(None, input_type):
        return value
    raise AssertionError("no input")


async def test_a_schema_the_model_cannot_template_is_an_error(stub: OpenAIStub) -> None:
    stub.chat = lambda body: json.dumps({"schema_issue": "only numbers: no message fits"})
    generator = DatasetInputGenerator(prompt="Where is my order?")
    with pytest.raises(ValueError, match="Cannot template prompt into Invoice: only numbers"):
        await first_input(generator, Invoice)


async def test_concurrent_scenarios_of_one_shape_ask_the_model_once(stub: OpenAIStub) -> None:
    stub.chat = lambda body: json.dumps({"message": {"note": "{{prompt}}", "author": "me"}})
    prompts = ["first question", "second question", "third question"]
    inputs = await asyncio.gather(
        *(first_input(DatasetInputGenerator(prompt=p), Memo) for p in prompts)
    )
    assert inputs == [Memo(note=p, author="me") for p in prompts]
    assert len(stub.chat_requests) == 1
