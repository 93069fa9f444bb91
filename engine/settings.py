"""One settings object for CLI, language server and extension.

Resolution order (later wins): defaults < checkspec.yaml < environment
(CHECKSPEC_*) < explicit overrides (CLI flags, editor settings).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from .judges import config as judges_config

# The LLM defaults, also importable from here as from the reference library's settings.
from .judges.config import (  # noqa: F401
    get_default_embedding_model,
    get_default_generator,
    get_default_judge,
    set_default_embedding_model,
    set_default_generator,
    set_default_judge,
)
from .spec.workspace import Workspace

# The model variables are the ones the LLM checks read (one list of names).
_ENV = {
    "model": judges_config.MODEL_ENV,
    "embedding_model": judges_config.EMBEDDING_MODEL_ENV,
    "api_base": judges_config.API_BASE_ENV,
    "target": "CHECKSPEC_TARGET",
}


@dataclass(frozen=True)
class Settings:
    model: str | None = None
    embedding_model: str | None = None
    api_base: str | None = None
    target: str | None = None
    concurrency: int = 8
    target_timeout: float = 60.0
    max_file_size: int = 10_000_000


def resolve_settings(workspace: Workspace | None = None, **overrides: Any) -> Settings:
    settings = Settings()
    if workspace is not None:
        config = workspace.config
        settings = replace(
            settings,
            **{
                f.name: getattr(config, f.name)
                for f in fields(Settings)
                if getattr(config, f.name, None) is not None
            },
        )
    from_env = {name: os.environ[var] for name, var in _ENV.items() if os.environ.get(var)}
    settings = replace(settings, **from_env)
    given = {k: v for k, v in overrides.items() if v is not None}
    return replace(settings, **given)


def apply_llm_settings(settings: Settings) -> None:
    """Make the resolved model settings the defaults of the LLM checks (no litellm import)."""
    if settings.model:
        judges_config.set_default_generator(
            judges_config.Generator(model=settings.model, api_base=settings.api_base)
        )
    if settings.embedding_model:
        judges_config.set_default_embedding_model(settings.embedding_model)


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


def editor_overrides(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Settings given by an editor (camelCase like `embeddingModel`, or snake_case).

    Values of the wrong type are ignored, and editors send "" for "unset".
    """
    found: dict[str, Any] = {}
    for spec in fields(Settings):
        value = raw.get(_camel(spec.name), raw.get(spec.name))
        if isinstance(spec.default, int | float):
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if number and value > 0:
                found[spec.name] = type(spec.default)(value)
        elif isinstance(value, str) and value.strip():
            found[spec.name] = value.strip()
    return found
