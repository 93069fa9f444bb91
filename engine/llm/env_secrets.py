"""The secrets this process holds, for every output to mask (engine/core/redact.py takes
them from here): the values of the environment's key variables and the secrets of its
endpoints' URLs, plus those every run's settings brought (`remember_secrets`).

Apart from engine/llm/snapshot.py (which re-exports all of it) so that what every command
does before it prints anything, registering the secrets' source, loads no more than this:
`checkspec validate` masks its messages too, and needs nothing of a run's snapshot.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from ..catalog import SETTINGS
from ..core import environment, redact

API_KEY_ENV = "CHECKSPEC_API_KEY"
EMBEDDING_API_KEY_ENV = "CHECKSPEC_EMBEDDING_API_KEY"
SDK_API_BASE_ENV = "OPENAI_API_BASE"  # litellm's openai base; the SDK path honours it too
# The variables holding an endpoint's URL, whose user-info and query may hold a secret.
_URL_VARS = tuple(
    str(s.env) for s in SETTINGS if s.env and s.name in ("api_base", "embedding_api_base")
)


def held_secrets(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """Every secret this process holds, for the outputs to mask (core/redact.py): the
    value of each variable named like a key (`redact.is_secret_name`: OPENAI_API_KEY,
    ANTHROPIC_API_KEY, CHECKSPEC_API_KEY, AWS_SECRET_ACCESS_KEY, HF_TOKEN... whatever
    provider litellm would take it for), and the passwords and secret query values of the
    endpoints' URLs; also those of every run's settings this process used (`using`), even
    once the run is over (its report is written after it)."""
    if environ is None:  # the process's: read again only when it changed (each write asks)
        return _with_remembered(environment.raw_state(), _remembered)
    return _secrets_of(environ) | _remembered


@lru_cache(maxsize=4)
def _with_remembered(
    raw: tuple[tuple[Any, Any], ...], remembered: frozenset[str]
) -> frozenset[str]:
    # The same set (the same object) while nothing changed: its redactor is looked up by it.
    decoded = {os.fsdecode(k): os.fsdecode(v) for k, v in raw}
    return _secrets_of(decoded) | remembered


def _secrets_of(environ: Mapping[str, str]) -> frozenset[str]:
    found = {v.strip() for name, v in environ.items() if redact.is_secret_name(name)}
    for var in (*_URL_VARS, SDK_API_BASE_ENV):
        found.update(redact.url_secrets(environ.get(var, "")))
    return frozenset(s for s in found if s)


_remembered: frozenset[str] = frozenset()


def remember_secrets(keys: Iterable[str | None], urls: Iterable[str | None]) -> None:
    """Keys and the secrets of endpoints' URLs that settings hold (a password in the
    user-info of checkspec.yaml's `api_base`): masked in every output from now on, for the
    rest of the process (`resolve` and `using` call it)."""
    global _remembered
    found = {key for key in keys if key}
    for url in urls:
        found.update(redact.url_secrets(url or ""))
    if not found <= _remembered:
        _remembered = _remembered | found


def redactor() -> redact.Redactor:
    """The redactor of every secret this process holds now (`held_secrets`)."""
    return redact.current()


redact.use_source(held_secrets)  # so the core's sinks (JUnit XML of a result) mask them too
