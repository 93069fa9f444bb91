"""Counting model calls as they are made: tokens from the provider's answer, dollars from
the model's price (checkspec.yaml's `models:` first, then litellm's local price map).

A `Meter` (`with Meter() as meter:`) opens a count for what runs inside it (a check, a scenario); counts nest,
and a call adds to every open one. asyncio tasks inherit the counts open where they
were created, so the calls of a scenario's checks and simulated users land in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar, Token
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..core.usage import Usage


@dataclass
class _Count:
    requests: int = 0
    failed: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced: int = 0

    def usage(self) -> Usage:
        return Usage(
            requests=self.requests,
            failed=self.failed,
            cached=self.cached,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cost_usd=self.cost_usd,
            unpriced=self.unpriced,
        )


_OPEN: ContextVar[tuple[_Count, ...]] = ContextVar("checkspec_usage", default=())


class Meter:
    """An open count (a context manager); `usage` is what was counted so far.

    A class rather than a generator: every scenario run opens one (the engine's hot path).
    """

    __slots__ = ("_count", "_token")

    def __init__(self) -> None:
        self._count = _Count()
        self._token: Token[tuple[_Count, ...]] | None = None

    def __enter__(self) -> Meter:
        self._token = _OPEN.set((*_OPEN.get(), self._count))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _OPEN.reset(self._token)
            self._token = None

    @property
    def counted(self) -> bool:
        """Any call counted (a request or a cached answer)."""
        return bool(self._count.requests or self._count.cached)

    @property
    def usage(self) -> Usage:
        return self._count.usage()


async def metered(call: Any) -> Any:
    """Await `call` (a check's result); what its model calls cost goes in its details."""
    with Meter() as meter:
        result = await call
    if meter.counted:
        result.details["usage"] = meter.usage.model_dump()
    return result


_PRICE_FILE = "model_prices_and_context_window_backup.json"


@cache
def litellm_price_file() -> Mapping[str, Any]:
    """litellm's local price map, read as the JSON file it ships, without importing litellm
    (its import is seconds; {} when the file is not found). It is what litellm.model_cost
    holds when it loads offline (LITELLM_LOCAL_MODEL_COST_MAP).

    Read once a process and shared by every caller (each model call that goes around
    litellm, the editor's estimate), so it is read-only: no caller can change another's."""
    import importlib.util
    import json
    from types import MappingProxyType

    found = importlib.util.find_spec("litellm")  # a top-level package: not imported
    for folder in (found.submodule_search_locations or []) if found else []:
        path = Path(folder) / _PRICE_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            return MappingProxyType(data)
    return MappingProxyType({})


def set_prices(prices: Mapping[str, tuple[float, float]]) -> None:
    """Prices per token (input, output) of models litellm does not know or prices otherwise,
    outside a run (a run's are its settings'): recorded in the snapshot's CodeDefaults."""
    from . import snapshot  # here: scenarios import this module, validating them no snapshot

    snapshot.set_code_defaults(prices=tuple(sorted(prices.items())))


def price_of(
    model: str | None,
    price_map: Mapping[str, Any] | None,
    prices: Mapping[str, tuple[float, float]] | None = None,
) -> tuple[float, float] | None:
    """(input, output) dollars per token: the configured price (`prices`, else this
    process's, set_prices), else litellm's map's."""
    if not model:
        return None
    if prices is None:
        from . import snapshot

        prices = dict(snapshot.effective().prices)
    configured = prices
    if model in configured:
        return configured[model]
    if price_map is None:
        return None
    for name in (model, model.split("/", 1)[-1]):
        entry = price_map.get(name)
        if isinstance(entry, Mapping):
            given = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
            if all(isinstance(p, int | float) for p in given):
                return float(given[0]), float(given[1])  # type: ignore[arg-type]
    return None


def cost_of(
    model: str | None,
    prompt_tokens: int,
    completion_tokens: int,
    price_map: Mapping[str, Any] | None,
    prices: Mapping[str, tuple[float, float]] | None = None,
) -> float | None:
    price = price_of(model, price_map, prices)
    if price is None:
        return None
    return prompt_tokens * price[0] + completion_tokens * price[1]


def record_request(
    model: str | None, response: Any, price_map: Mapping[str, Any] | None = None
) -> float | None:
    """A request answered: its tokens (the provider's `usage`) and cost, in every open
    count. Returns its cost (None: the model has no known price)."""
    reported = getattr(response, "usage", None)
    if isinstance(response, Mapping):
        reported = response.get("usage")
    prompt = _tokens(reported, "prompt_tokens")
    completion = _tokens(reported, "completion_tokens")
    cost = cost_of(model, prompt, completion, price_map)
    for count in _OPEN.get():
        count.requests += 1
        count.prompt_tokens += prompt
        count.completion_tokens += completion
        if cost is None:
            count.unpriced += 1
        else:
            count.cost_usd += cost
    return cost


def record_failed() -> None:
    """A request sent and answered with an error (or not answered: a timeout), in every
    open count: a retried 429 or 500 and a refused option are requests the provider saw."""
    for count in _OPEN.get():
        count.requests += 1
        count.failed += 1


def record_cached() -> None:
    """A call answered without a request (the run's cache or the verdict cache)."""
    for count in _OPEN.get():
        count.cached += 1


def _tokens(reported: Any, name: str) -> int:
    value = reported.get(name) if isinstance(reported, Mapping) else getattr(reported, name, 0)
    return value if isinstance(value, int) and value > 0 else 0


__all__ = [
    "Meter",
    "cost_of",
    "price_of",
    "record_cached",
    "record_failed",
    "record_request",
    "set_prices",
]
