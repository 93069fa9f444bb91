"""Whether a model's name can be called at all, found before anything is sent.

litellm routes a name by its provider (`openai/…`, `anthropic/…`, `ollama/…`) or, for a
bare name, by its own lists of known models; a name it cannot route (`gpt4o-mini`) fails
each call with a long message, after the run has started. `route_problem` asks first,
offline (litellm is told not to fetch its price map: client.py's `litellm_module`), and
without importing litellm when the answer is plain: a name sent straight to an
OpenAI-compatible endpoint (client.py's direct path), or one whose provider prefix
litellm's local price map names. Nothing here touches the network.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from functools import cache
from typing import Any

from . import client, usage

_PROVIDERS_PAGE = "https://docs.litellm.ai/docs/providers"


def route_problem(model: str, api_base: str | None = None) -> str | None:
    """None when litellm (or the direct path) can call `model`; else why not, in a line,
    with the name to write instead when one is close."""
    if client.sent_directly(model) or _known_prefix(model):
        return None
    litellm = client.litellm_module()
    try:
        litellm.get_llm_provider(model=model, api_base=api_base)
    except Exception as exc:
        return _explained(model, exc)
    return None


def _known_prefix(model: str) -> bool:
    provider, slash, name = model.partition("/")
    return bool(slash and name) and provider in _price_map_providers()


@cache
def _price_map_providers() -> frozenset[str]:
    """The providers litellm's local price map names (read as JSON, no import)."""
    return frozenset(
        str(entry["litellm_provider"])
        for entry in usage.litellm_price_file().values()
        if isinstance(entry, Mapping) and isinstance(entry.get("litellm_provider"), str)
    )


def _explained(model: str, exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    first = first.removeprefix("litellm.BadRequestError: ")
    if "LLM Provider NOT provided" in first:
        first = "litellm cannot tell which provider serves it"
    near = _near_name(model)
    guess = f" (did you mean {near}?)" if near is not None and near != model else ""
    return (
        f"{first}{guess}; name it PROVIDER/NAME ({_PROVIDERS_PAGE}), "
        f"openai/{model} for an OpenAI-compatible endpoint"
    )


def _near_name(model: str) -> str | None:
    """The known chat model nearest `model` (`gpt4o-mini` -> `openai/gpt-4o-mini`)."""
    known: dict[str, Any] = {
        name: entry
        for name, entry in usage.litellm_price_file().items()
        if isinstance(entry, Mapping) and entry.get("mode") in ("chat", "embedding")
    }
    found = difflib.get_close_matches(model.split("/", 1)[-1], list(known), n=1, cutoff=0.85)
    if not found:
        return None
    name = found[0]
    provider = known[name].get("litellm_provider")
    return name if "/" in name or not isinstance(provider, str) else f"{provider}/{name}"


__all__ = ["route_problem"]
