"""Provider limits: never more in flight than allowed, across all workers of a run; rpm
and tpm windows; a 429's Retry-After is honoured."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from checkspec.engine.llm import limits
from checkspec.engine.llm.client import retry_after
from checkspec.engine.llm.limits import ModelLimits, RateLimiter
from tests.support.openai_stub import OpenAIStub, SlowVerdicts, judged_suite, running_stub

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]


def test_the_limiter_never_lets_more_than_max_parallel_requests_run() -> None:
    async def main() -> tuple[int, int]:
        limiter = RateLimiter((("", ModelLimits(max_parallel_requests=3)),))
        running = peak = 0

        async def call() -> None:
            nonlocal running, peak
            ticket = await limiter.acquire("m", 10)
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(0.01)
            running -= 1
            await limiter.release(ticket)

        await asyncio.gather(*(call() for _ in range(40)))
        return peak, limiter.peak_in_flight

    assert asyncio.run(main()) == (3, 3)


def test_a_release_wakes_one_waiter_not_all(monkeypatch: pytest.MonkeyPatch) -> None:
    # With every waiter woken by each release, N queued calls cost O(N^2) checks: the
    # run's owner spent seconds of CPU there in a 3,000-scenario run.
    checks = 0
    wait_for = limits.ModelBudget.wait_for

    def counted(self: limits.ModelBudget, tokens: int, now: float) -> float | None:
        nonlocal checks
        checks += 1
        return wait_for(self, tokens, now)

    monkeypatch.setattr(limits.ModelBudget, "wait_for", counted)

    async def main() -> None:
        limiter = RateLimiter((("", ModelLimits(max_parallel_requests=2)),))

        async def call() -> None:
            ticket = await limiter.acquire("m", 10)
            await asyncio.sleep(0)
            await limiter.release(ticket)

        await asyncio.gather(*(call() for _ in range(400)))

    asyncio.run(main())
    assert checks < 3 * 400


def test_a_cancelled_waiter_passes_its_wake_up_on() -> None:
    async def main() -> bool:
        limiter = RateLimiter((("", ModelLimits(max_parallel_requests=1)),))
        first = await limiter.acquire("m", 1)
        second = asyncio.ensure_future(limiter.acquire("m", 1))
        third = asyncio.ensure_future(limiter.acquire("m", 1))
        await asyncio.sleep(0.01)  # both wait for the slot
        await limiter.release(first)  # wakes the second...
        second.cancel()  # ...which is cancelled before it runs
        ticket = await asyncio.wait_for(third, 2)
        await limiter.release(ticket)
        return second.cancelled()

    assert asyncio.run(main())


def test_rpm_and_tpm_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "WINDOW_SECONDS", 0.4)

    async def starts(model_limits: ModelLimits, tokens: int, count: int) -> list[float]:
        limiter = RateLimiter((("m", model_limits),))
        times: list[float] = []

        async def call() -> None:
            ticket = await limiter.acquire("m", tokens)
            times.append(time.monotonic())
            await limiter.release(ticket)

        await asyncio.gather(*(call() for _ in range(count)))
        return sorted(times)

    def most_in_a_window(times: list[float]) -> int:
        return max(sum(1 for t in times if start <= t < start + 0.4) for start in times)

    assert most_in_a_window(asyncio.run(starts(ModelLimits(rpm=3), 1, 9))) <= 3
    # 100 tokens per call, 250 per window: two calls a window.
    assert most_in_a_window(asyncio.run(starts(ModelLimits(tpm=250), 100, 6))) <= 2
    # A model without limits of its own takes the judge's; no limits at all: no waiting.
    judge = RateLimiter((("", ModelLimits(rpm=1)),))
    assert judge.limits_of("other").rpm == 1
    assert not RateLimiter(()).limits_of("x").any


def test_retry_after_reads_seconds_and_dates() -> None:
    class Answer:
        def __init__(self, value: str) -> None:
            self.headers = {"retry-after": value}

    class Limited(Exception):
        def __init__(self, value: str) -> None:
            self.response = Answer(value)

    assert retry_after(Limited("2")) == 2.0
    assert retry_after(Limited("Wed, 21 Oct 2015 07:28:00 GMT")) == 0.0  # in the past
    assert retry_after(Limited("9999")) == 120.0  # bounded
    assert retry_after(Limited("soon")) is None
    assert retry_after(ValueError()) is None


def run(project: Path, stub: OpenAIStub, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "CHECKSPEC_API_BASE": stub.base_url,
        "CHECKSPEC_API_KEY": "sk-test",
        "CHECKSPEC_MODEL": "openai/judge",
    }
    return subprocess.run(
        [*CLI, "run", ".", "--format", "json", "--no-cache", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.mark.parametrize("executor", ["process", "inprocess"])
def test_requests_in_flight_stay_under_the_limit_across_workers(
    tmp_path: Path, executor: str
) -> None:
    (tmp_path / "checkspec.yaml").write_text("jobs: 2\nconcurrency: 12\nmax_parallel_requests: 2\n")
    (tmp_path / "j.suite.yaml").write_text(judged_suite(12))
    slow = SlowVerdicts(0.2)
    with running_stub() as stub:
        stub.chat = slow
        done = run(tmp_path, stub, "--executor", executor)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["scenarios"]) == 12
    assert len(stub.chat_requests) == 12
    assert slow.peak == 2  # the limit, reached: the workers did run calls in parallel


def test_a_429_retry_after_is_honoured(tmp_path: Path) -> None:
    (tmp_path / "j.suite.yaml").write_text(judged_suite(1))
    with running_stub() as stub:
        stub.retry_after = "1"
        stub.script(429, OpenAIStub.verdict(True, "fine"))
        done = run(tmp_path, stub)
    assert done.returncode == 0, done.stdout
    first, second = stub.chat_times
    assert second - first >= 0.95  # the default backoff would have been 0.2 s
