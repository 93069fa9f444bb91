"""What running a scenario would ask of its models, for the Run lenses ("≈ $0.03 · 12
calls"): counted from the file alone, without the network, litellm or any user code.

A call is each model-calling check of each step, and `max_steps` turns of each LLM input
generator; its prompt is estimated from the check's template and the interactions the
file gives (about four characters a token) plus an answer (llm/dry_run.py's estimate).
Prices: checkspec.yaml's `models:`, else litellm's price file, read as JSON (litellm is
not imported). `checkspec run --dry-run` renders every prompt and counts exactly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from checkspec.engine.core.sentinel import MISSING
from checkspec.engine.generators.base import BaseLLMGenerator
from checkspec.engine.interactions import Interact
from checkspec.engine.judges.base import BaseLLMCheck
from checkspec.engine.judges.semantic_similarity import SemanticSimilarity
from checkspec.engine.llm.dry_run import ANSWER_TOKENS
from checkspec.engine.llm.usage import cost_of, litellm_price_file

_TEMPLATE_GUESS = 400  # tokens of a judge prompt whose template cannot be read


@dataclass(frozen=True)
class Estimate:
    calls: int = 0
    prompt_tokens: int = 0

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(self.calls + other.calls, self.prompt_tokens + other.prompt_tokens)


def estimate(scenario: Any) -> Estimate:
    """The model calls of one run of `scenario` (every step counted) and their prompt tokens."""
    found = Estimate()
    for step in getattr(scenario, "steps", ()):
        said = 0  # characters of the conversation so far, as the file gives it
        for spec in step.interacts:
            if not isinstance(spec, Interact):
                continue
            inputs = spec.inputs
            if isinstance(inputs, BaseLLMGenerator):
                turns = inputs.max_steps
                found = found + Estimate(turns, turns * (_template_tokens(inputs) + said // 4))
                continue
            said += _chars(inputs) + _chars(spec.outputs)
        for check in step.checks:
            if isinstance(check, SemanticSimilarity):
                found = found + Estimate(1, said // 4 + 1)
            elif isinstance(check, BaseLLMCheck):
                found = found + Estimate(1, _template_tokens(check) + said // 4)
    return found


def lens_note(total: Estimate, model: str | None, prices: Mapping[str, tuple[float, float]]) -> str:
    """`≈ $0.0300 · 12 calls`, or only the calls when the price is unknown ("" for none)."""
    if not total.calls:
        return ""
    calls = f"{total.calls} call{'s' if total.calls != 1 else ''}"
    if not model:
        return f"{calls} (no model set)"
    price_map = {} if model in prices else litellm_price_file()
    answer = total.calls * ANSWER_TOKENS
    cost = cost_of(model, total.prompt_tokens, answer, price_map, prices)
    return f"{calls} (no price for {model})" if cost is None else f"≈ ${cost:.4f} · {calls}"


def _chars(value: Any) -> int:
    if value is MISSING or value is None or callable(value):
        return 0
    return len(value) if isinstance(value, str) else len(json.dumps(value, default=str))


def _template_tokens(model: Any) -> int:
    try:
        prompt = model.get_prompt()
    except Exception:  # a template only a run can read (a file, a custom class)
        return _TEMPLATE_GUESS
    return len(prompt) // 4 if isinstance(prompt, str) else _TEMPLATE_GUESS
