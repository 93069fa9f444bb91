"""What model calls cost: the totals a check, a scenario or a run reports.

Counted by the LLM client where the calls are made (engine/llm/usage.py); carried by
results (CheckResult.details["usage"], ScenarioResult.usage) so that every executor
brings it back with them, and summed by the front ends.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field


class Usage(BaseModel):
    """Requests sent, answers served from a cache, tokens and dollars."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    requests: int = Field(
        default=0,
        description="Requests sent to a provider, each attempt of a retried call and the "
        "ones answered with an error included.",
    )
    failed: int = Field(
        default=0,
        description="Of `requests`, those answered with an error or not at all (a retried "
        "429 or 500, a refused option, a timeout): no tokens, no cost.",
    )
    cached: int = Field(
        default=0, description="Calls answered from the run's or the verdict cache (no request)."
    )
    prompt_tokens: int = Field(default=0, description="Prompt tokens, as the provider counted.")
    completion_tokens: int = Field(default=0, description="Answer tokens, as the provider counted.")
    cost_usd: float = Field(
        default=0.0, description="Dollars, for the requests with a known price."
    )
    unpriced: int = Field(
        default=0, description="Requests to a model without a known price (not in cost_usd)."
    )

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __bool__(self) -> bool:
        return bool(self.requests or self.cached)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            requests=self.requests + other.requests,
            failed=self.failed + other.failed,
            cached=self.cached + other.cached,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            unpriced=self.unpriced + other.unpriced,
        )

    @classmethod
    def total(cls, usages: Iterable[Usage | None]) -> Usage:
        found = cls()
        for usage in usages:
            if usage is not None:
                found = found + usage
        return found

    @property
    def known_cost(self) -> float | None:
        """Dollars spent; None when every answered request went to a model without a price."""
        answered = self.requests - self.failed
        return None if self.unpriced and self.unpriced >= answered else self.cost_usd

    def describe(self) -> str:
        """One line: `12 LLM requests (2 failed, 3 cached), 4,512 tokens, $0.0123`."""
        notes = [f"{self.failed} failed"] if self.failed else []
        notes += [f"{self.cached} cached"] if self.cached else []
        cached = f" ({', '.join(notes)})" if notes else ""
        cost = format_cost(self.known_cost)
        if self.unpriced and self.requests - self.failed > self.unpriced:
            cost += f" + {self.unpriced} unpriced"
        return (
            f"{self.requests} LLM request{'s' if self.requests != 1 else ''}{cached}, "
            f"{self.total_tokens:,} tokens, {cost}"
        )


def format_cost(dollars: float | None) -> str:
    """A cost as every report shows it (text summary, history, compare, markdown, HTML):
    `$0.0123`, or `$?` when it is unknown (a model without a price). JSON keeps null."""
    return "$?" if dollars is None else f"${dollars:.4f}"


def cost_of(usage: Usage | None) -> float | None:
    """The cost a report records: 0 when no model was called, None when unpriced."""
    if usage is None:
        return 0.0
    known = usage.known_cost
    return None if known is None else round(known, 6)


__all__ = ["Usage", "cost_of", "format_cost"]
