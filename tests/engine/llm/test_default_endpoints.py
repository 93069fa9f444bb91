"""Which generator and embedding model a check uses (engine/llm/endpoints.py) when user
code set a default: in a run, the run's settings go over a default of ours and leave
another library's object in place when they name no model; outside a run the object is
used as it is; a check's own object is never merged; a model name becomes settings; a
dumped object of another library needs that library; dumps of objects stay readable."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from checkspec.engine import SemanticSimilarity
from checkspec.engine.judges import Generator
from checkspec.engine.llm.endpoints import (
    EmbeddingModel,
    get_default_embedding_model,
    get_default_generator,
    resolve_generator,
    set_default_embedding_model,
    set_default_generator,
)
from checkspec.engine.settings import Settings, use_settings
from tests.support.model_env import no_model_configured


class OtherGenerator:
    async def complete(self, messages: Any, params: Any = None) -> Any:
        return "ok"


class OtherEmbedder:
    async def embed(self, texts: list[str]) -> list[list[float]]:
        return [[1.0] for _ in texts]


class PydanticEmbedder(BaseModel):  # as another library's (pydantic) embedding model
    name: str = "theirs"

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return [[1.0] for _ in texts]


@pytest.fixture(autouse=True)
def no_defaults(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with no_model_configured(monkeypatch):
        yield


def test_another_librarys_generator_is_used_as_it_is() -> None:
    other = OtherGenerator()
    set_default_generator(other)
    assert get_default_generator() is other  # outside a run
    with use_settings(Settings(model=None)):
        assert get_default_generator() is other  # the run names no model
    with use_settings(Settings(model="openai/run-model")):
        found = get_default_generator()
        assert isinstance(found, Generator) and found.model == "openai/run-model"
    own = OtherGenerator()
    assert resolve_generator(own) is own  # a check's own object: not merged


def test_a_default_of_ours_fills_what_the_run_leaves_out() -> None:
    set_default_generator(Generator(model="openai/fallback", api_base="http://fallback"))
    with use_settings(Settings(model="openai/run-model")):
        found = get_default_generator()
        assert (found.model, found.api_base) == ("openai/run-model", "http://fallback")


def test_embedding_models_by_name_object_and_run() -> None:
    set_default_embedding_model("openai/text-embedding-3-small")  # a name: settings
    found = get_default_embedding_model()
    assert isinstance(found, EmbeddingModel) and found.model == "openai/text-embedding-3-small"
    with use_settings(Settings(embedding_model="openai/run-embedder")):
        assert get_default_embedding_model().model == "openai/run-embedder"
    other = OtherEmbedder()
    set_default_embedding_model(other)
    assert get_default_embedding_model() is other
    with use_settings(Settings(embedding_model=None)):
        assert get_default_embedding_model() is other
    with use_settings(Settings(embedding_model="openai/run-embedder")):
        assert get_default_embedding_model().model == "openai/run-embedder"


def test_a_dumped_object_of_another_library_needs_that_library() -> None:
    with pytest.raises(ValueError, match=r"needs giskard\.agents, which is not installed"):
        SemanticSimilarity.model_validate(
            {"reference_text": "x", "embedding_model": {"kind": "their_embedder"}}
        )


def test_dumps_keep_names_settings_and_objects_readable() -> None:
    by_name = SemanticSimilarity(reference_text="x", embedding_model="openai/e")
    assert by_name.model_dump()["embedding_model"] == "openai/e"
    by_settings = SemanticSimilarity(
        reference_text="x", embedding_model=EmbeddingModel(model="openai/e", api_base="http://b")
    )
    assert by_settings.model_dump()["embedding_model"] == {
        "model": "openai/e",
        "api_base": "http://b",
    }
    pydantic_object = SemanticSimilarity(reference_text="x", embedding_model=PydanticEmbedder())
    assert pydantic_object.model_dump()["embedding_model"] == {"name": "theirs"}
    plain_object = SemanticSimilarity(reference_text="x", embedding_model=OtherEmbedder())
    assert plain_object.model_dump()["embedding_model"].startswith("<")  # its repr
