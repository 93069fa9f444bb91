"""The model settings of the run in progress: one immutable snapshot, passed, not written.

`engine/settings.py` resolves the settings once (flag > environment > checkspec.yaml >
default) and each front end hands the snapshot to what runs: an executor job runs inside
`using(snapshot)`, `generate` too. The llm modules read `current()`: the endpoint and key
(endpoints.py), the client path and the SDK's fallback base (client.py), the prompt limit
(prompt_limits.py), the prices (usage.py) and the verdict cache (verdict_cache.py). The
snapshot lives in a context variable, so two runs in one process (the language server's
in-process tests, a notebook) each see their own, and asyncio tasks and `to_thread` calls
inherit it; nothing is written into module globals at run time.

The environment is read in one place, `environment_values` (the resolver calls it; the
llm modules call it only when no snapshot is active, i.e. library use without a run:
`Suite.run` in a script, a check called directly). `held_secrets` reads it too, for
the secrets every output masks (engine/core/redact.py takes them from here). The reference
library's setters
(`set_default_generator`...) stay what they were: a fallback set explicitly by user code.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from ..catalog import SETTINGS, SETTINGS_BY_NAME
from ..core import redact

API_KEY_ENV = "CHECKSPEC_API_KEY"
EMBEDDING_API_KEY_ENV = "CHECKSPEC_EMBEDDING_API_KEY"
SDK_API_BASE_ENV = "OPENAI_API_BASE"  # litellm's openai base; the SDK path honours it too
_ENV = {s.name: s.env for s in SETTINGS if s.env}
# The variables holding an endpoint's URL, whose user-info and query may hold a secret.
_URL_VARS = tuple(
    str(s.env) for s in SETTINGS if s.env and s.name in ("api_base", "embedding_api_base")
)


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


_active: ContextVar[LLMSettings | None] = ContextVar("checkspec_llm_settings", default=None)


def current() -> LLMSettings | None:
    """The snapshot of the run in progress here, or None (library use, no run)."""
    return _active.get()


@contextmanager
def using(settings: LLMSettings) -> Iterator[LLMSettings]:
    """Run the block (and the tasks it starts) with `settings`."""
    token = _active.set(settings)
    try:
        yield settings
    finally:
        _active.reset(token)


def environment_values(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """THE reading of the environment: the catalog's CHECKSPEC_* variables that are set
    (numbers that do not read as one are ignored), plus the secrets (`api_key`,
    `embedding_api_key`) and OPENAI_API_BASE (`sdk_api_base`), which no file holds."""
    environ = os.environ if environ is None else environ
    found: dict[str, Any] = {}
    for name, var in _ENV.items():
        raw = environ.get(var, "").strip()
        if not raw:
            continue
        kind = SETTINGS_BY_NAME[name].type
        if kind is int:
            if raw.isdigit() and int(raw) > 0:
                found[name] = int(raw)
        elif kind is float:
            try:
                number = float(raw)
            except ValueError:
                continue
            if number > 0 and number != float("inf"):
                found[name] = number
        else:
            found[name] = raw
    for name, var in (
        ("api_key", API_KEY_ENV),
        ("embedding_api_key", EMBEDDING_API_KEY_ENV),
        ("sdk_api_base", SDK_API_BASE_ENV),
    ):
        if raw := environ.get(var, "").strip():
            found[name] = raw
    return found


def held_secrets(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """Every secret this process holds, for the outputs to mask (core/redact.py): the
    value of each variable named like a key (`redact.is_secret_name`: OPENAI_API_KEY,
    ANTHROPIC_API_KEY, CHECKSPEC_API_KEY, AWS_SECRET_ACCESS_KEY, HF_TOKEN... whatever
    provider litellm would take it for), the run's keys, and the passwords and secret
    query values of the endpoints' URLs (from the environment and the run's settings)."""
    environ = os.environ if environ is None else environ
    found = {v.strip() for name, v in environ.items() if redact.is_secret_name(name)}
    urls = [environ.get(var, "") for var in (*_URL_VARS, SDK_API_BASE_ENV)]
    run = _active.get()
    if run is not None:
        found.update(filter(None, (run.api_key, run.embedding_api_key)))
        urls += [run.api_base or "", run.embedding_api_base or "", run.sdk_api_base or ""]
    for url in urls:
        found.update(redact.url_secrets(url))
    return frozenset(s for s in found if s)


def redactor() -> redact.Redactor:
    """The redactor of every secret this process holds now (`held_secrets`)."""
    return redact.current()


redact.use_source(held_secrets)  # so the core's sinks (JUnit XML of a result) mask them too


def from_environment() -> LLMSettings:
    """Without a run: what the environment alone says (library use)."""
    known = {f for f in LLMSettings.__dataclass_fields__}
    values = environment_values()
    values.pop("cache_dir", None)  # no run, no persistent cache unless one is configured
    return LLMSettings(**{k: v for k, v in values.items() if k in known})


def effective() -> LLMSettings:
    """The run's snapshot, else the environment's."""
    return current() or from_environment()


__all__ = [
    "LLMSettings",
    "current",
    "effective",
    "environment_values",
    "from_environment",
    "held_secrets",
    "redactor",
    "using",
]
