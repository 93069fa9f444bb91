"""A run that sends nothing: each model call is counted (calls, cached answers, prompt
tokens by litellm's token counter) instead of made, for `checkspec run --dry-run`.

Inside `planning()`, the client counts a call whose answer a cache already holds as
cached and gives that answer; any other call is counted and ends with `NotSent`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from .errors import ProviderError

# What an answer adds, for the estimate: a verdict is a sentence or two (limits.py's
# ANSWER_TOKENS is a bound for rate limiting, not an estimate).
ANSWER_TOKENS = 80


class NotSent(ProviderError):
    """The call was counted, not sent (dry run)."""


@dataclass
class ModelPlan:
    calls: int = 0  # requests the run would send
    cached: int = 0  # answers a cache already holds
    prompt_tokens: int = 0

    @property
    def answer_tokens(self) -> int:
        return self.calls * ANSWER_TOKENS


@dataclass
class Plan:
    models: dict[str, ModelPlan] = field(default_factory=dict)

    def of(self, model: str | None) -> ModelPlan:
        return self.models.setdefault(model or "(no model)", ModelPlan())

    @property
    def calls(self) -> int:
        return sum(m.calls for m in self.models.values())


_ACTIVE: ContextVar[Plan | None] = ContextVar("checkspec_dry_run", default=None)


def active() -> Plan | None:
    return _ACTIVE.get()


@contextmanager
def planning() -> Iterator[Plan]:
    plan = Plan()
    token = _ACTIVE.set(plan)
    try:
        yield plan
    finally:
        _ACTIVE.reset(token)


__all__ = ["ANSWER_TOKENS", "ModelPlan", "NotSent", "Plan", "active", "planning"]
