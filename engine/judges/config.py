"""Which LLM and embedding model the judges call, and the process-wide defaults.

The defaults come from `set_default_*` when a caller (workspace config, CLI flag)
set one, else from the environment, read on every call so a variable exported after
import (or patched by a test) takes effect.
"""

from __future__ import annotations

import os
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, SecretStr

MODEL_ENV = "CHECKSPEC_MODEL"
API_BASE_ENV = "CHECKSPEC_API_BASE"
API_KEY_ENV = "CHECKSPEC_API_KEY"
EMBEDDING_MODEL_ENV = "CHECKSPEC_EMBEDDING_MODEL"
# The embedding model's own endpoint, for when it is served elsewhere than the judge
# (unset, the judge's endpoint and key are used).
EMBEDDING_API_BASE_ENV = "CHECKSPEC_EMBEDDING_API_BASE"
EMBEDDING_API_KEY_ENV = "CHECKSPEC_EMBEDDING_API_KEY"


class _Endpoint(BaseModel):
    """Connection settings shared by chat and embedding models."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(
        default=None,
        description="litellm model name with its provider prefix, e.g. openai/gpt-4o-mini.",
    )
    api_base: str | None = Field(
        default=None, description="Base URL of the provider's API (default: the provider's own)."
    )
    # Excluded from dumps so a serialized check or config never carries the secret.
    api_key: SecretStr | None = Field(
        default=None,
        exclude=True,
        description="API key; prefer the environment (never written back to files).",
    )
    timeout: float = Field(default=60.0, gt=0, description="Seconds one request may take.")
    max_retries: int = Field(
        default=2,
        ge=0,
        description="Retries after a provider error (HTTP 5xx, 429, timeout, connection).",
    )
    retry_backoff: float = Field(
        default=0.2, ge=0, description="Seconds before the first retry; doubles on each retry."
    )
    max_concurrency: int = Field(
        default=8, ge=1, description="Most requests in flight at once for this run."
    )

    def merged_over(self, default: Self) -> Self:
        """These settings where explicitly given, the default's elsewhere."""
        explicit = {
            name: value
            for name in self.model_fields_set
            if (value := getattr(self, name)) is not None  # null means "not given" too
        }
        return default.model_copy(update=explicit)

    def secret(self) -> str | None:
        return self.api_key.get_secret_value() if self.api_key is not None else None


class Generator(_Endpoint):
    """An LLM used as a judge."""

    temperature: float = Field(
        default=0.0, ge=0, description="Sampling temperature; 0 keeps verdicts repeatable."
    )


class EmbeddingModel(_Endpoint):
    """An embedding model (semantic_similarity)."""


_default_generator: Generator | None = None
_default_embedding_model: EmbeddingModel | None = None


def _env(name: str) -> str | None:
    return os.environ.get(name) or None


def set_default_generator(generator: Generator | str | None) -> None:
    """Use `generator` (or a model name) for LLM checks without their own; None: the env."""
    global _default_generator
    _default_generator = Generator(model=generator) if isinstance(generator, str) else generator


def get_default_generator() -> Generator:
    """The generator set with set_default_generator, its gaps (e.g. the key) filled from the
    CHECKSPEC_MODEL / CHECKSPEC_API_BASE / CHECKSPEC_API_KEY variables; else just those."""
    from_env = Generator(
        model=_env(MODEL_ENV), api_base=_env(API_BASE_ENV), api_key=_env(API_KEY_ENV)
    )
    if _default_generator is None:
        return from_env
    # Secrets stay in the environment: a model set from checkspec.yaml still gets its key.
    return _default_generator.merged_over(from_env)


def set_default_embedding_model(model: EmbeddingModel | str | None) -> None:
    """Use `model` (or a model name) for embedding checks; None: back to the env."""
    global _default_embedding_model
    _default_embedding_model = EmbeddingModel(model=model) if isinstance(model, str) else model


def get_default_embedding_model() -> EmbeddingModel:
    """The model set with set_default_embedding_model, its gaps filled from the
    CHECKSPEC_EMBEDDING_MODEL / _API_BASE / _API_KEY variables, then from the judge's
    endpoint (`get_default_generator`: checkspec.yaml, editor, CHECKSPEC_API_BASE / _API_KEY),
    so the four variables that configure a provider configure its embeddings too."""
    judge = get_default_generator()
    from_env = EmbeddingModel(
        model=_env(EMBEDDING_MODEL_ENV),
        api_base=_env(EMBEDDING_API_BASE_ENV) or judge.api_base,
        api_key=_env(EMBEDDING_API_KEY_ENV) or judge.secret(),
    )
    if _default_embedding_model is None:
        return from_env
    return _default_embedding_model.merged_over(from_env)
