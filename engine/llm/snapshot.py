"""The model settings of the run in progress: one immutable snapshot, passed, not written.

`engine/settings.py` resolves the settings once (flag > environment > checkspec.yaml >
default) and each front end hands the snapshot to what runs: an executor job runs inside
`using(snapshot)`, `generate` too. The llm modules read `current()`: the endpoint and key
(endpoints.py), the client path and the SDK's fallback base (client.py), the prompt limit
(prompt_limits.py), the prices (usage.py) and the verdict cache (verdict_cache.py). The
snapshot lives in a context variable, so two runs in one process (the language server's
in-process tests, a notebook) each see their own, and asyncio tasks and `to_thread` calls
inherit it; no setting is written into module globals at run time.

The environment is read in one place, `environment_values` (through
engine/core/environment.py, the one reader of the process's environment): the resolver
calls it, and `from_environment` too, for the snapshot of library use without a run
(`Suite.run` in a script, a check called directly). `held_secrets` (env_secrets.py,
re-exported here) reads it too, for the secrets every output masks (engine/core/redact.py
takes them from there); the one global written at run time is the set of secrets
settings brought (`remember_secrets`), masked for the rest of the process.

The reference library's setters (`set_default_generator`, `set_default_embedding_model`,
`set_max_prompt_size`, `verdict_cache.configure`, `set_prices`, `set_llm_client`) record
what user code set (`CodeDefaults`); it is folded into the snapshot when the snapshot is
made (`using`: a run's, under its settings; `from_environment`: over the environment),
so a reader reads the snapshot alone (`effective()`), never a module global of its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any

from ..catalog import SETTINGS, SETTINGS_BY_NAME
from ..core import environment

# The secrets held (one reading of them, masked in every output) are env_secrets.py's,
# apart so that a command registers their source without loading the snapshot.
from .env_secrets import (
    API_KEY_ENV,
    EMBEDDING_API_KEY_ENV,
    SDK_API_BASE_ENV,
    held_secrets,
    redactor,
    remember_secrets,
)

_ENV = {s.name: s.env for s in SETTINGS if s.env}


@dataclass(frozen=True)
class LLMSettings:
    """What a model call needs of the resolved settings."""

    model: str | None = None
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    embedding_model: str | None = None
    embedding_api_base: str | None = None
    embedding_api_key: str | None = field(default=None, repr=False)
    max_concurrency: int | None = None  # the run-wide parallel limit of the judge's provider
    llm_client: str = SETTINGS_BY_NAME["llm_client"].default
    max_prompt_size: int = SETTINGS_BY_NAME["max_prompt_size"].default
    prices: tuple[tuple[str, tuple[float, float]], ...] = ()
    cache_dir: str | None = None  # None: no persistent verdict cache
    cache_max_mb: float = SETTINGS_BY_NAME["cache_max_mb"].default
    sdk_api_base: str | None = None  # OPENAI_API_BASE, for `openai/` models without api_base
    # What user code set (CodeDefaults), folded in when the snapshot is made: a run's
    # settings go over these (endpoints.py), without a run these go over the environment.
    default_generator: Any = field(default=None, repr=False, compare=False)
    default_embedding_model: Any = field(default=None, repr=False, compare=False)
    in_run: bool = True  # False: the environment's (library use), not a run's settings


@dataclass(frozen=True)
class CodeDefaults:
    """What user code set through the reference library's API; None: not set."""

    generator: Any = None  # set_default_generator (a Generator, or another library's)
    embedding_model: Any = None  # set_default_embedding_model
    max_prompt_size: int | None = None  # set_max_prompt_size
    cache_dir: str | None = None  # verdict_cache.configure (library use only)
    cache_max_mb: float | None = None
    prices: tuple[tuple[str, tuple[float, float]], ...] | None = None  # usage.set_prices
    llm_client: str | None = None  # client.set_llm_client


_code = CodeDefaults()


def set_code_defaults(**values: Any) -> None:
    """Record what user code set (the setters above call this); the next snapshot made
    holds it. Not a setting of a run: a run's resolved settings go over it."""
    global _code
    _code = replace(_code, **values)


def code_defaults() -> CodeDefaults:
    return _code


def with_code_defaults(settings: LLMSettings) -> LLMSettings:
    """A run's snapshot with the generator and embedding model user code set: the run's
    settings fill from them (endpoints.py); its prompt limit, cache, prices and client
    are its own."""
    return replace(
        settings, default_generator=_code.generator, default_embedding_model=_code.embedding_model
    )


_active: ContextVar[LLMSettings | None] = ContextVar("checkspec_llm_settings", default=None)


def current() -> LLMSettings | None:
    """The snapshot of the run in progress here, or None (library use, no run)."""
    return _active.get()


@contextmanager
def using(settings: LLMSettings) -> Iterator[LLMSettings]:
    """Run the block (and the tasks it starts) with `settings`, what user code set
    folded in (`with_code_defaults`)."""
    _remember(settings)
    settings = with_code_defaults(settings)
    token = _active.set(settings)
    try:
        yield settings
    finally:
        _active.reset(token)


TRUSTED_FOLDERS_ENV = "CHECKSPEC_TRUSTED_FOLDERS"


def trusted_folders(environ: Mapping[str, str] | None = None) -> list[str]:
    """The folders whose checkspec.yaml the user trusts whoever owns it (engine/spec/
    trust.py), from CHECKSPEC_TRUSTED_FOLDERS: separated by the path separator, `*` any."""
    raw = environment.variables(environ).get(TRUSTED_FOLDERS_ENV, "")
    return [folder.strip() for folder in raw.split(os.pathsep) if folder.strip()]


def environment_values(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """THE reading of the environment: the catalog's CHECKSPEC_* variables that are set
    (numbers that do not read as one are ignored), plus the secrets (`api_key`,
    `embedding_api_key`) and OPENAI_API_BASE (`sdk_api_base`), which no file holds."""
    return _environment(environ)[0]


def environment_problems(environ: Mapping[str, str] | None = None) -> list[str]:
    """The catalog's variables set to a value that does not read (`CHECKSPEC_JOBS=four`):
    each as `NAME=value: what it must be`. A run refuses them (engine/settings.py:
    require_readable) rather than go on with the default in their place."""
    return _environment(environ)[1]


def _environment(environ: Mapping[str, str] | None) -> tuple[dict[str, Any], list[str]]:
    environ = environment.variables(environ)
    found: dict[str, Any] = {}
    problems: list[str] = []
    for name, var in _ENV.items():
        raw = environ.get(var, "").strip()
        if not raw:
            continue
        kind = SETTINGS_BY_NAME[name].type
        if kind is int:
            if raw.isdigit() and int(raw) > 0:
                found[name] = int(raw)
            else:
                problems.append(f"{var}={raw!r}: not a whole number above 0")
        elif kind is float:
            try:
                number = float(raw)
            except ValueError:
                number = -1.0
            if number > 0 and number != float("inf"):
                found[name] = number
            else:
                problems.append(f"{var}={raw!r}: not a number above 0")
        else:
            found[name] = raw
    for name, var in (
        ("api_key", API_KEY_ENV),
        ("embedding_api_key", EMBEDDING_API_KEY_ENV),
        ("sdk_api_base", SDK_API_BASE_ENV),
    ):
        if raw := environ.get(var, "").strip():
            found[name] = raw
    return found, problems


def _remember(settings: LLMSettings) -> None:
    remember_secrets(
        (settings.api_key, settings.embedding_api_key),
        (settings.api_base, settings.embedding_api_base, settings.sdk_api_base),
    )


def from_environment(environ: Mapping[str, str] | None = None) -> LLMSettings:
    """Without a run (library use): what user code set (CodeDefaults) over what the
    environment says, over the defaults."""
    known = {f for f in LLMSettings.__dataclass_fields__}
    values = environment_values(environ)
    values.pop("cache_dir", None)  # no run, no persistent cache unless one is configured
    found = LLMSettings(in_run=False, **{k: v for k, v in values.items() if k in known})
    code = _code
    given: dict[str, Any] = {
        "max_prompt_size": code.max_prompt_size,
        "cache_dir": code.cache_dir,
        "cache_max_mb": code.cache_max_mb,
        "prices": code.prices,
        "llm_client": code.llm_client,
    }
    return replace(
        found,
        default_generator=code.generator,
        default_embedding_model=code.embedding_model,
        **{name: value for name, value in given.items() if value is not None},
    )


def effective() -> LLMSettings:
    """The run's snapshot, else the environment's (made again at each call: a variable
    exported, or a default set, after import takes effect)."""
    return current() or from_environment()


__all__ = [
    "CodeDefaults",
    "LLMSettings",
    "code_defaults",
    "current",
    "effective",
    "environment_values",
    "from_environment",
    "held_secrets",
    "redactor",
    "remember_secrets",
    "set_code_defaults",
    "using",
    "with_code_defaults",
]
