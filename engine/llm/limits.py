"""Provider limits and the run's budget, enforced across every worker of a run.

`max_parallel_requests`, `rpm` (requests per minute) and `tpm` (tokens per minute, from
the prompt's length) per model. One `RateLimiter` decides for the whole run: it lives
in the process that owns the run (the CLI's, the server's), and the workers ask it
before each call through a `Gate` (in-process: the limiter itself; a pool worker: a
message to its parent; Ray: a limiter actor). Calls wait for their turn; none fails,
except past the run's budget (`max_cost`): once what was spent plus what is in flight
would pass it, the limiter refuses every new call (`BudgetReached`).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

from .errors import ProviderError

WINDOW_SECONDS = 60.0
# What a call's output adds to its prompt's tokens, for `tpm` (answers are short verdicts).
ANSWER_TOKENS = 256


@dataclass(frozen=True)
class ModelLimits:
    max_parallel_requests: int | None = None
    rpm: int | None = None
    tpm: int | None = None

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.max_parallel_requests, self.rpm, self.tpm))


# By model name; the key "" holds the judge model's limits (`max_parallel_requests:` at
# the top of checkspec.yaml), used for a model without limits of its own.
Limits = tuple[tuple[str, ModelLimits], ...]


def estimate_tokens(text: str) -> int:
    """About four characters a token, plus the answer."""
    return len(text) // 4 + ANSWER_TOKENS


class ModelBudget:
    """One model's limits and what is in flight or was spent in the last minute."""

    def __init__(self, limits: ModelLimits) -> None:
        self.limits = limits
        self.in_flight = 0
        self.requests: deque[float] = deque()
        self.tokens: deque[tuple[float, int]] = deque()
        self.token_total = 0
        # Calls waiting for a slot (max_parallel_requests); a release wakes one of them,
        # not all: with thousands queued, waking all made each release cost O(waiters).
        self.freed = asyncio.Condition()

    def wait_for(self, tokens: int, now: float) -> float | None:
        """0 when a call of `tokens` may start now, the seconds to wait for the window,
        or None when only a release can make room."""
        self._expire(now)
        limits = self.limits
        if (
            limits.max_parallel_requests is not None
            and self.in_flight >= limits.max_parallel_requests
        ):
            return None
        waits = [0.0]
        if limits.rpm is not None and len(self.requests) >= limits.rpm:
            waits.append(self.requests[0] + WINDOW_SECONDS - now)
        if limits.tpm is not None and self.tokens and self.token_total + tokens > limits.tpm:
            # A call bigger than the whole budget still runs, alone in its window.
            waits.append(self.tokens[0][0] + WINDOW_SECONDS - now)
        return max(waits)

    def take(self, tokens: int, now: float) -> None:
        self.in_flight += 1
        self.requests.append(now)
        self.tokens.append((now, tokens))
        self.token_total += tokens

    def _expire(self, now: float) -> None:
        while self.requests and self.requests[0] <= now - WINDOW_SECONDS:
            self.requests.popleft()
        while self.tokens and self.tokens[0][0] <= now - WINDOW_SECONDS:
            self.token_total -= self.tokens.popleft()[1]


class BudgetReached(ProviderError):
    """The run's budget (max_cost) would be passed: the call was not sent."""


@dataclass(frozen=True)
class Ticket:
    """A call's turn: its model and the cost held for it while it is in flight."""

    model: str
    cost: float = 0.0
    limited: bool = False  # it holds a slot of the model's limits


class RateLimiter:
    """The run's one decision maker (asyncio; lives on the run owner's event loop)."""

    def __init__(self, limits: Limits, max_cost: float | None = None) -> None:
        self._limits = dict(limits)
        self._budgets: dict[str, ModelBudget] = {}
        self.peak_in_flight = 0  # for tests and benchmarks
        self.max_cost = max_cost
        self.spent = 0.0  # dollars of the calls that ended
        self.held = 0.0  # dollars held for the calls in flight (their estimates)
        self.reached = False  # once refused, every later call is refused too

    def limits_of(self, model: str) -> ModelLimits:
        return self._limits.get(model) or self._limits.get("") or ModelLimits()

    async def acquire(self, model: str, tokens: int, cost: float = 0.0) -> Ticket:
        """Wait for a turn; the ticket to give back to `release`. Raises BudgetReached."""
        self._hold(cost)
        limits = self.limits_of(model)
        if not limits.any:
            return Ticket(model, cost)
        budget = self._budgets.get(model)
        if budget is None:
            budget = self._budgets[model] = ModelBudget(limits)
        try:
            while True:
                wait = budget.wait_for(tokens, time.monotonic())
                if wait == 0:
                    budget.take(tokens, time.monotonic())
                    self.peak_in_flight = max(self.peak_in_flight, budget.in_flight)
                    return Ticket(model, cost, limited=True)
                if wait is None:  # every slot taken: a release wakes one waiter
                    async with budget.freed:
                        await budget.freed.wait()
                else:  # the window is full: it makes room by itself
                    await asyncio.sleep(wait)
        except BaseException:  # cancelled while waiting: nothing was spent
            self.held -= cost
            # A wake-up this call took and can no longer use goes to the next waiter.
            if budget.in_flight < (limits.max_parallel_requests or 1 << 62):
                await self._wake_one(budget)
            raise

    @staticmethod
    async def _wake_one(budget: ModelBudget) -> None:
        async with budget.freed:
            budget.freed.notify(1)

    def _hold(self, cost: float) -> None:
        if self.max_cost is None:
            return
        if self.reached or self.spent + self.held + cost > self.max_cost:
            self.reached = True
            raise BudgetReached(
                f"budget reached: ${self.spent:.4f} spent and ${self.held:.4f} in flight of "
                f"the ${self.max_cost:g} allowed (max_cost); this call was not sent"
            )
        self.held += cost

    async def release(self, ticket: object, spent: float = 0.0) -> None:
        if not isinstance(ticket, Ticket):
            return
        self.held = max(0.0, self.held - ticket.cost)
        self.spent += spent
        budget = self._budgets.get(ticket.model) if ticket.limited else None
        if budget is None:
            return
        budget.in_flight = max(0, budget.in_flight - 1)
        await self._wake_one(budget)


class Gate(Protocol):
    async def acquire(self, model: str, tokens: int, cost: float = 0.0) -> object: ...

    async def release(self, ticket: object, spent: float = 0.0) -> None: ...


_gate: Gate | None = None
_NOT_GIVEN = object()
# The run's gate, passed with its jobs (executor/jobs.py run_job); _NOT_GIVEN: set_gate's.
_run_gate: ContextVar[object] = ContextVar("checkspec_gate", default=_NOT_GIVEN)


def set_gate(gate: Gate | None) -> None:
    """Where this process asks before a provider call outside a run's `gating` block
    (None: nowhere, no limits): library use and tests."""
    global _gate
    _gate = gate


@contextmanager
def gating(gate: Gate | None) -> Iterator[None]:
    """Run the block (a job, `generate`) asking `gate` before each provider call."""
    token = _run_gate.set(gate)
    try:
        yield
    finally:
        _run_gate.reset(token)


def _current_gate() -> Gate | None:
    given = _run_gate.get()
    return _gate if given is _NOT_GIVEN else given  # type: ignore[return-value]


def gated() -> bool:
    """A gate decides these calls (limits or a budget): estimates are wanted."""
    return _current_gate() is not None


@dataclass
class _Turn:
    spent: float = 0.0


_TURN: ContextVar[_Turn | None] = ContextVar("checkspec_turn", default=None)


def settle(cost: float | None) -> None:
    """What the call of the current turn cost (told by the client once it is answered)."""
    current = _TURN.get()
    if current is not None and cost is not None:
        current.spent += cost


@asynccontextmanager
async def turn(model: str | None, tokens: int, cost: float = 0.0) -> AsyncIterator[None]:
    """Wait for the run's limits (and budget) to allow a call to `model` of about `cost`
    dollars; hold the slot during it, then account for what it cost."""
    gate = _current_gate()
    if gate is None or model is None:
        yield
        return
    ticket = await gate.acquire(model, tokens, cost)
    current = _Turn()
    token = _TURN.set(current)
    try:
        yield
    finally:
        _TURN.reset(token)
        await gate.release(ticket, current.spent)


def run_limiter(limits: Limits, max_cost: float | None) -> RateLimiter | None:
    """The run's limiter when it has provider limits or a budget; else None (no gate)."""
    return RateLimiter(limits, max_cost) if limits or max_cost is not None else None


def limits_from_config(judge: ModelLimits, models: dict[str, ModelLimits] | None = None) -> Limits:
    """The settings' form: the judge model's limits under "", then each named model's."""
    found = [("", judge)] if judge.any else []
    found += sorted((name, limits) for name, limits in (models or {}).items() if limits.any)
    return tuple(found)
