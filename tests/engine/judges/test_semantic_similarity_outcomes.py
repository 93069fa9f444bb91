"""semantic_similarity's outcomes with an embedding model object (no network): a pass and a
failure against the threshold with the similarity as a metric, and an error (not a
failure) for what is missing or cannot be compared: no embedding model, no reference,
no answer, vectors of different lengths or none, too few vectors; a key matching several
values is a failure that says so."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from checkspec.engine import Interaction, SemanticSimilarity, Trace
from checkspec.engine.core.check import NO_MODEL_CALLS, ModelCalls
from checkspec.engine.llm.endpoints import EmbeddingModel, set_default_embedding_model


def trace(outputs: Any = "Paris.", **metadata: Any) -> Trace:
    return Trace(interactions=[Interaction(inputs="Capital?", outputs=outputs, metadata=metadata)])


class Embedder:
    """Vectors by text; `drop` vectors fewer than asked for."""

    def __init__(self, vectors: dict[str, list[float]], drop: int = 0) -> None:
        self.vectors = vectors
        self.drop = drop
        self.asked: list[list[str]] = []

    async def embed(self, texts: list[str]) -> list[list[float]]:
        self.asked.append(texts)
        return [self.vectors[t] for t in texts][self.drop :]


VECTORS = {"Paris.": [1.0, 0.0], "Paris, France.": [0.8, 0.6], "Rome.": [0.0, 1.0]}


@pytest.fixture(autouse=True)
def no_default_embedding_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("CHECKSPEC_EMBEDDING_MODEL", raising=False)
    set_default_embedding_model(None)
    yield
    set_default_embedding_model(None)


async def test_below_the_threshold_fails_with_the_similarity() -> None:
    embedder = Embedder(VECTORS)
    check = SemanticSimilarity(
        reference_text="Paris, France.", threshold=0.9, embedding_model=embedder
    )
    result = await check.run(trace())
    assert result.failed and not result.errored
    assert result.message == (
        "The cosine similarity with the reference answer is 0.80 which is less than the "
        "threshold 0.90"
    )
    assert [(m.name, round(m.value, 6)) for m in result.metrics] == [("similarity", 0.8)]
    assert result.details["model"] == "Embedder"
    assert embedder.asked == [["Paris.", "Paris, France."]]  # one call for both texts
    assert check.model_calls() == NO_MODEL_CALLS  # an object of its own: not ours to count


async def test_the_reference_from_the_trace_passes() -> None:
    check = SemanticSimilarity(threshold=0.5, embedding_model=Embedder(VECTORS))
    result = await check.run(trace(reference_text="Paris, France."))
    assert result.passed and result.details["reference_text"] == "Paris, France."


@pytest.mark.parametrize(
    ("check", "traced", "message"),
    [
        (
            {"reference_text_key": "trace.last.metadata.nowhere"},
            trace(),
            "No value found for reference text key 'trace.last.metadata.nowhere'.",
        ),
        ({}, trace(reference_text=""), "No reference text found"),
        (
            {"reference_text": "Rome.", "target_key": "trace.last.metadata.answer"},
            trace(),
            "No value found for actual answer key 'trace.last.metadata.answer'.",
        ),
        ({"reference_text": "Rome."}, trace(outputs=""), "No actual answer found"),
    ],
)
async def test_what_is_missing_is_an_error(check: dict, traced: Trace, message: str) -> None:
    embedder = Embedder(VECTORS)
    result = await SemanticSimilarity(embedding_model=embedder, **check).run(traced)
    assert result.errored and result.message == message
    assert embedder.asked == []  # nothing to compare: no call


async def test_a_key_matching_several_values_fails_and_says_so() -> None:
    check = SemanticSimilarity(
        reference_text="Rome.",
        target_key="trace.interactions[*].outputs",
        embedding_model=Embedder(VECTORS),
    )
    many = Trace(
        interactions=[
            Interaction(inputs="a", outputs="Paris."),
            Interaction(inputs="b", outputs="Rome."),
        ]
    )
    result = await check.run(many)
    assert result.failed and not result.errored
    assert result.message.startswith(
        "Value for actual answer key 'trace.interactions[*].outputs' must be a single value, "
        "but found list."
    )


@pytest.mark.parametrize(
    ("vectors", "drop", "said"),
    [
        (
            {"Paris.": [1.0, 0.0], "Rome.": [1.0]},
            0,
            "cannot be compared: vectors of different lengths (2 and 1)",
        ),
        (
            {"Paris.": [0.0, 0.0], "Rome.": [0.0, 1.0]},
            0,
            "cannot be compared: Cannot calculate cosine similarity for null vectors",
        ),
        (VECTORS, 1, "the embedding model returned 1 vectors for 2"),
    ],
)
async def test_vectors_that_cannot_be_compared_are_an_error(
    vectors: dict[str, list[float]], drop: int, said: str
) -> None:
    check = SemanticSimilarity(reference_text="Rome.", embedding_model=Embedder(vectors, drop))
    result = await check.run(trace())
    assert result.errored and said in result.message
    assert (
        result.details["actual_answer"] == "Paris." and result.details["reference_text"] == "Rome."
    )


async def test_no_embedding_model_configured_is_an_error_naming_where_to_set_one() -> None:
    check = SemanticSimilarity(reference_text="Rome.")
    result = await check.run(trace())
    assert result.errored
    assert result.message.startswith("No embedding model configured: set CHECKSPEC_EMBEDDING_MODEL")
    assert check.model_calls() == NO_MODEL_CALLS


def test_a_named_embedding_model_declares_one_request() -> None:
    check = SemanticSimilarity(
        reference_text="Rome.",
        embedding_model=EmbeddingModel(model="openai/text-embedding-3-small"),
    )
    assert check.model_calls() == ModelCalls("openai/text-embedding-3-small", 1)
