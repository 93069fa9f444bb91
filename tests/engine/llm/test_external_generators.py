"""Generators and embedding models of other libraries, called by duck typing: the answer
format in structured-output params when the generator's params take one (else at the
end of the prompt), the answer's text read from each shape of response those libraries
return, and an embedding model returning the wrong number of vectors said as such."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel, model_validator

from checkspec.engine.llm.errors import ProviderError
from checkspec.engine.llm.external import complete_text, describe, embed_texts

INSTRUCTION = "\nAnswer as JSON."


class Verdict(BaseModel):
    passed: bool


class Params(BaseModel):  # as giskard-agents' generation params
    response_format: Any = None
    temperature: float = 0.0


class NoFormatParams(BaseModel):
    temperature: float = 0.0


class PickyParams(BaseModel):
    response_format: Any = None

    @model_validator(mode="after")
    def _refuse(self) -> PickyParams:
        if self.response_format is not None:
            raise ValueError("this provider takes no response format")
        return self


@dataclass
class Recording:
    """A generator double: what it was sent, and a fixed response."""

    response: Any
    params: Any = None
    model: Any = None

    def __post_init__(self) -> None:
        self.calls: list[tuple[list[dict[str, str]], Any]] = []

    async def complete(self, messages: list[dict[str, str]], params: Any = None) -> Any:
        self.calls.append((messages, params))
        return self.response


async def test_structured_params_carry_the_answer_format_instead_of_the_prompt() -> None:
    generator = Recording("ok", params=Params(temperature=0.5))
    assert await complete_text(generator, "Judge this.", Verdict, INSTRUCTION) == "ok"
    ((messages, params),) = generator.calls
    assert messages == [{"role": "user", "content": "Judge this."}]
    assert isinstance(params, Params) and params.response_format is Verdict


@pytest.mark.parametrize(
    "params", [None, NoFormatParams(), PickyParams(), {"response_format": None}]
)
async def test_without_usable_params_the_format_goes_at_the_end_of_the_prompt(
    params: Any,
) -> None:
    generator = Recording("ok", params=params)
    assert await complete_text(generator, "Judge this.", Verdict, INSTRUCTION) == "ok"
    ((messages, sent),) = generator.calls
    assert messages == [{"role": "user", "content": "Judge this." + INSTRUCTION}]
    assert sent is None


@dataclass
class Message:
    content: Any = None


@dataclass
class TextMessage:
    text: str
    content: Any = None


@dataclass
class Choice:
    message: Any


@dataclass
class Choices:
    choices: list[Choice]


@dataclass
class Single:
    message: Any


@pytest.mark.parametrize(
    ("response", "text"),
    [
        ("plain text", "plain text"),
        (Choices([Choice(Message("from choices"))]), "from choices"),
        (Single(Message("from message")), "from message"),
        (Single(TextMessage(text="from text")), "from text"),
        (Single(Message(42)), "42"),
        (Choices([]), None),
        (Single(None), None),
        (object(), None),
    ],
)
async def test_the_answers_text_from_each_response_shape(response: Any, text: str | None) -> None:
    assert await complete_text(Recording(response), "Hi", None, INSTRUCTION) == text


def test_a_generator_is_named_by_its_model_else_its_class() -> None:
    assert describe(Recording("x", model="acme/large")) == "acme/large"
    assert describe(Recording("x", model=7)) == "Recording"


class Embedder:
    def __init__(self, vectors: list[list[float]]) -> None:
        self.vectors = vectors

    async def embed(self, texts: list[str]) -> Any:
        return iter(self.vectors)  # any iterable


async def test_embedding_models_give_one_vector_per_text() -> None:
    assert await embed_texts(Embedder([[1.0], [2.0]]), ["a", "b"]) == [[1.0], [2.0]]
    with pytest.raises(ProviderError, match="returned 1 vectors for 2"):
        await embed_texts(Embedder([[1.0]]), ["a", "b"])
