"""No model configured: what the model-call tests start from and leave behind.

The variables that name a judge or an embedding model, their endpoints and keys are
unset, the defaults user code may set (set_default_generator, set_default_embedding_model)
are cleared, and so is the in-run answer cache: a test never sees another's model.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from checkspec.engine.llm.client import clear_cache
from checkspec.engine.llm.endpoints import set_default_embedding_model, set_default_generator

MODEL_ENV = (
    "CHECKSPEC_MODEL",
    "CHECKSPEC_API_BASE",
    "CHECKSPEC_API_KEY",
    "CHECKSPEC_EMBEDDING_MODEL",
    "CHECKSPEC_EMBEDDING_API_BASE",
    "CHECKSPEC_EMBEDDING_API_KEY",
)


def _clear_defaults() -> None:
    set_default_generator(None)
    set_default_embedding_model(None)
    clear_cache()


@contextlib.contextmanager
def no_model_configured(monkeypatch: pytest.MonkeyPatch, *more_env: str) -> Iterator[None]:
    """Inside, no model is configured (`more_env`: other variables unset too)."""
    for name in (*MODEL_ENV, *more_env):
        monkeypatch.delenv(name, raising=False)
    _clear_defaults()
    try:
        yield
    finally:
        _clear_defaults()
