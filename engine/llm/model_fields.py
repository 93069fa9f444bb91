"""The model fields of checks and generators: `generator` and `embedding_model`.

None means the process-wide default (endpoints.py), read when the model is called.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from .endpoints import (
    EmbeddingInput,
    EmbeddingModel,
    GeneratorInput,
    get_default_embedding_model,
    get_default_generator,
)


class WithGeneratorMixin(BaseModel):
    """A `generator` field; None means the default generator."""

    generator: GeneratorInput = Field(
        default=None,
        description=(
            "LLM used (a model name or settings); when left out, the default model "
            "(CHECKSPEC_MODEL, `model:` in checkspec.yaml, --model)."
        ),
    )

    @property
    def _generator(self) -> Any:
        return self.generator if self.generator is not None else get_default_generator()


class WithEmbeddingMixin(BaseModel):
    """An `embedding_model` field; None means the default embedding model."""

    embedding_model: EmbeddingInput = Field(
        default=None,
        description=(
            "Embedding model (a litellm name such as openai/text-embedding-3-small, or "
            "settings); default: CHECKSPEC_EMBEDDING_MODEL or `embedding_model:` in "
            "checkspec.yaml."
        ),
    )

    @property
    def _embedding_model(self) -> Any:
        default = get_default_embedding_model()
        model = self.embedding_model
        if model is None:
            return default
        if isinstance(model, EmbeddingModel) and isinstance(default, EmbeddingModel):
            return model.merged_over(default)
        return model


__all__ = ["WithEmbeddingMixin", "WithGeneratorMixin"]
