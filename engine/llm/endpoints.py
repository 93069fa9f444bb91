"""Which LLM and embedding model a call goes to.

Read from one snapshot (snapshot.effective()): in a run, the run's settings (resolved once
by engine/settings.py), gaps filled from what user code set with `set_default_*`; without
one (library use), what user code set over the environment's. The setters record into
snapshot.py (CodeDefaults), folded into the snapshot when it is made; nothing here keeps
a default of its own.
"""

from __future__ import annotations

from typing import Annotated, Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    SecretStr,
    SerializationInfo,
    WrapValidator,
)

from ..catalog import SETTINGS_BY_NAME
from . import snapshot
from .external import rebuild_external

# The variables of the model settings are the catalog's (engine/catalog.py); the keys are
# secrets, never settings shown or written anywhere.
MODEL_ENV = str(SETTINGS_BY_NAME["model"].env)
API_BASE_ENV = str(SETTINGS_BY_NAME["api_base"].env)
API_KEY_ENV = snapshot.API_KEY_ENV
EMBEDDING_MODEL_ENV = str(SETTINGS_BY_NAME["embedding_model"].env)
# The embedding model's own endpoint, for when it is served elsewhere than the judge
# (unset, the judge's endpoint and key are used).
EMBEDDING_API_BASE_ENV = str(SETTINGS_BY_NAME["embedding_api_base"].env)
EMBEDDING_API_KEY_ENV = snapshot.EMBEDDING_API_KEY_ENV


class _Endpoint(BaseModel):
    """Connection settings shared by chat and embedding models."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

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


def _given(**values: Any) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not None}


def set_default_generator(generator: Any) -> None:
    """Use `generator` (settings, a model name, or a generator object) for LLM checks
    without their own; None: back to the environment. A fallback set by user code (the
    reference library's API): a run's resolved settings (snapshot.py) go over it, and
    checkspec's own resolution never calls this. Our settings models, or an object with
    the generator interface from another library (see external.py), used as it is."""
    snapshot.set_code_defaults(
        generator=Generator(model=generator) if isinstance(generator, str) else generator
    )


def _snapshot_generator(settings: snapshot.LLMSettings) -> Generator:
    return Generator(
        **_given(
            model=settings.model,
            api_base=settings.api_base,
            api_key=settings.api_key,
            max_concurrency=settings.max_concurrency,
        )
    )


def get_default_generator() -> Any:
    """The judge's generator. In a run: the run's settings (snapshot.py: flag, environment,
    checkspec.yaml), their gaps filled from set_default_generator's. Without one: the
    generator set with set_default_generator, its gaps (e.g. the key) filled from the
    environment (CHECKSPEC_MODEL / _API_BASE / _API_KEY); else just those.

    A generator object of another library is returned as it was set.
    """
    settings = snapshot.effective()
    resolved = _snapshot_generator(settings)
    return _with_code_default(resolved, settings.default_generator, Generator, settings.in_run)


def _with_code_default(resolved: Any, default: Any, kind: type[Any], in_run: bool) -> Any:
    """The settings' model (`resolved`) with the one set in code (set_default_*): in a run,
    the run's settings over the code's (an object of another library when the settings
    name no model); outside one, the code's over the environment's (secrets stay in the
    environment: a model set in code still gets its key)."""
    if default is None:
        return resolved
    if not isinstance(default, kind):
        return resolved if in_run and resolved.model else default
    return resolved.merged_over(default) if in_run else default.merged_over(resolved)


def resolve_generator(own: Any) -> Any:
    """The generator to call: `own` over the default (settings it leaves out come from
    the default), the default when None, a generator object as it is."""
    default = get_default_generator()
    if own is None:
        return default
    if isinstance(own, Generator) and isinstance(default, Generator):
        return own.merged_over(default)
    return own


def set_default_embedding_model(model: Any) -> None:
    """Use `model` (settings, a model name, or an embedding model object) for embedding
    checks; None: back to the environment. A fallback set by user code, as
    set_default_generator."""
    if isinstance(model, str):
        model = EmbeddingModel(model=model)
    snapshot.set_code_defaults(embedding_model=model)


def get_default_embedding_model() -> Any:
    """The embedding model: the run's settings (else the environment's: the
    CHECKSPEC_EMBEDDING_MODEL / _API_BASE / _API_KEY variables), its endpoint and key
    falling back to the judge's (`get_default_generator`), so the settings that configure
    a provider configure its embeddings too; with set_default_embedding_model's as in
    get_default_generator."""
    settings = snapshot.effective()
    judge = get_default_generator()
    judge_base = judge.api_base if isinstance(judge, Generator) else None
    judge_key = judge.secret() if isinstance(judge, Generator) else None
    resolved = EmbeddingModel(
        **_given(
            model=settings.embedding_model,
            api_base=settings.embedding_api_base or judge_base,
            api_key=settings.embedding_api_key or judge_key,
            max_concurrency=settings.max_concurrency,
        )
    )
    default = settings.default_embedding_model
    return _with_code_default(resolved, default, EmbeddingModel, settings.in_run)


# -- fields that take a generator / embedding model -------------------------------------


def is_external_generator(value: Any) -> bool:
    """An object with the generator interface that is not one of our settings models."""
    return not isinstance(value, Generator | str | dict) and callable(
        getattr(value, "complete", None)
    )


def is_external_embedding_model(value: Any) -> bool:
    return not isinstance(value, EmbeddingModel | str | dict) and callable(
        getattr(value, "embed", None)
    )


def _generator_value(value: Any, handler: Any) -> Any:
    if value is None or is_external_generator(value):
        return value  # another library's generator object: used as it is
    if isinstance(value, dict) and "kind" in value:  # a dump of one (ours have no kind)
        return rebuild_external(value, "BaseGenerator")
    return handler({"model": value} if isinstance(value, str) else value)


def _dump_settings(value: Any, info: SerializationInfo) -> Any:
    # What was written, not the defaults: reloaded, it still defers to the default.
    if isinstance(value, _Endpoint):
        return value.model_dump(mode=info.mode, exclude_unset=True)
    if isinstance(value, BaseModel):  # another library's (pydantic) object
        return value.model_dump(mode=info.mode)
    return None if value is None else repr(value)


def _embedding_value(value: Any, handler: Any) -> Any:
    if value is None or is_external_embedding_model(value):
        return value
    if isinstance(value, dict) and "kind" in value:
        return rebuild_external(value, "BaseEmbeddingModel")
    return handler({"model": value} if isinstance(value, str) else value)


def _dump_embedding(value: Any, info: SerializationInfo) -> Any:
    # A bare model name stays a bare name (`embedding_model: openai/...` in files).
    if isinstance(value, EmbeddingModel) and value.model_fields_set == {"model"}:
        return value.model
    return _dump_settings(value, info)


# A generator field: our settings (a bare model name is accepted), or a generator object.
GeneratorInput = Annotated[
    Generator | None,
    WrapValidator(_generator_value, json_schema_input_type=Generator | str | None),
    PlainSerializer(_dump_settings),
]
# An embedding model field: our settings or a name, or an embedding model object.
EmbeddingInput = Annotated[
    EmbeddingModel | None,
    WrapValidator(_embedding_value, json_schema_input_type=EmbeddingModel | str | None),
    PlainSerializer(_dump_embedding),
]
