"""One settings object for CLI, language server and extension.

Resolution order (later wins): defaults < checkspec.yaml < environment
(CHECKSPEC_*) < explicit overrides (CLI flags, editor settings).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from .judges import config as judges_config
from .judges import limits as provider_limits
from .judges import prompt_limits, verdict_cache

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
    "embedding_api_base": judges_config.EMBEDDING_API_BASE_ENV,
    "target": "CHECKSPEC_TARGET",
    "max_prompt_size": prompt_limits.MAX_PROMPT_SIZE_ENV,
    "cache_dir": "CHECKSPEC_CACHE_DIR",
}


@dataclass(frozen=True)
class Settings:
    model: str | None = None
    embedding_model: str | None = None
    api_base: str | None = None
    embedding_api_base: str | None = None  # unset: the judge's api_base
    target: str | None = None
    concurrency: int = 8
    target_timeout: float = 60.0
    scenario_timeout: float = 300.0
    jobs: int = 0  # worker processes of a run; 0: one per CPU
    python: str | None = None  # interpreter of the worker processes; None: the current one
    max_file_size: int = 10_000_000
    max_prompt_size: int = prompt_limits.DEFAULT_MAX_PROMPT_SIZE
    limits: provider_limits.Limits = ()  # provider limits by model, "" for the judge's
    cache: bool = True  # keep judge and embedding answers between runs
    cache_dir: str | None = None  # None: .checkspec/cache at the workspace root
    cache_max_mb: float = verdict_cache.DEFAULT_MAX_MB


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
        judge = provider_limits.ModelLimits(config.max_parallel_requests, config.rpm, config.tpm)
        per_model = {
            name: provider_limits.ModelLimits(m.max_parallel_requests, m.rpm, m.tpm)
            for name, m in config.models.items()
        }
        found = provider_limits.limits_from_config(judge, per_model)
        settings = replace(settings, limits=found)
    settings = replace(settings, **_from_environment())
    given = {k: v for k, v in overrides.items() if v is not None}
    return replace(settings, **given)


def for_workspace(settings: Settings, root: Path | None) -> Settings:
    """The settings with their paths made absolute: the workers' interpreter and the
    verdict cache's folder are relative to the workspace root (else the current folder)."""
    from .executor.pool import worker_python

    base = root or Path.cwd()
    cache_dir = Path(settings.cache_dir) if settings.cache_dir else base / ".checkspec" / "cache"
    return replace(
        settings,
        python=worker_python(settings.python, root),
        cache_dir=str(cache_dir if cache_dir.is_absolute() else base / cache_dir),
    )


def _from_environment() -> dict[str, Any]:
    """The CHECKSPEC_* variables that are set; numbers that do not read as one are ignored."""
    found: dict[str, Any] = {}
    defaults = {f.name: f.default for f in fields(Settings)}
    for name, var in _ENV.items():
        raw = os.environ.get(var, "").strip()
        if not raw:
            continue
        if isinstance(defaults[name], int):
            if raw.isdigit() and int(raw) > 0:
                found[name] = int(raw)
        else:
            found[name] = raw
    return found


def apply_llm_settings(settings: Settings) -> None:
    """Make the resolved model settings the defaults of the LLM checks (no litellm import).

    The embedding model's endpoint falls back to the judge's (see get_default_embedding_model).
    """
    # With a run-wide limit, this process may use all of it (the run's limiter shares it
    # out); without one, each process keeps the endpoint's own default.
    judge = dict(settings.limits).get("")
    parallel = judge.max_parallel_requests if judge is not None else None
    extra = {"max_concurrency": parallel} if parallel else {}
    if settings.model or settings.api_base or extra:
        judges_config.set_default_generator(
            judges_config.Generator(model=settings.model, api_base=settings.api_base, **extra)
        )
    if settings.embedding_model or settings.embedding_api_base or extra:
        judges_config.set_default_embedding_model(
            judges_config.EmbeddingModel(
                model=settings.embedding_model, api_base=settings.embedding_api_base, **extra
            )
        )
    prompt_limits.set_max_prompt_size(settings.max_prompt_size)
    verdict_cache.configure(settings.cache_dir if settings.cache else None, settings.cache_max_mb)


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
        if isinstance(spec.default, bool) or spec.default == ():
            continue  # switches and structured settings come from checkspec.yaml only
        if isinstance(spec.default, int | float):
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if number and value > 0:
                found[spec.name] = type(spec.default)(value)
        elif isinstance(value, str) and value.strip():
            found[spec.name] = value.strip()
    return found
