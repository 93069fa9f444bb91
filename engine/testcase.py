"""TestCase: a fixed trace and the checks to run on it (replays, advanced use)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Generic

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny

from .core.check import Check
from .core.result import TestCaseResult
from .core.run_sync import run_sync
from .core.trace import TraceType
from .core.typevars import InputType, OutputType
from .scenarios.scenario import run_checks


class TestCase(BaseModel, Generic[InputType, OutputType, TraceType]):
    """Bundle a trace with the checks to run against it."""

    __test__ = False  # not a pytest test class
    model_config = ConfigDict(defer_build=True, extra="forbid", arbitrary_types_allowed=True)

    name: str | None = Field(default=None, description="Optional label.")
    trace: TraceType = Field(description="The interactions to judge.")
    checks: Sequence[SerializeAsAny[Check[InputType, OutputType, TraceType]]] = Field(
        description="Checks to run against the trace."
    )

    async def run(self, return_exception: bool = False) -> TestCaseResult:
        return await get_runner().run(self, return_exception=return_exception)

    def run_sync(self, return_exception: bool = False) -> TestCaseResult:
        """`run(...)` from synchronous code (not inside a running event loop)."""
        return run_sync(self.run, return_exception)

    async def assert_passed(self) -> None:
        """Run, then raise AssertionError listing each check that did not pass."""
        result = await self.run()
        result.assert_passed()


class TestCaseRunner:
    """Runs a test case's checks against its trace."""

    __test__ = False

    def __init__(self) -> None:
        pass

    async def run(self, test_case: TestCase, return_exception: bool = False) -> TestCaseResult:
        started = time.perf_counter()
        results = await run_checks(test_case.checks, test_case.trace, return_exception)
        return TestCaseResult.model_construct(
            results=results,
            duration_ms=int((time.perf_counter() - started) * 1000),
            last_interaction_index=len(test_case.trace.interactions) - 1
            if test_case.trace.interactions
            else None,
            error=None,
            check_names=[c.display_name for c in test_case.checks],
        )


_RUNNER = TestCaseRunner()


def get_runner() -> TestCaseRunner:
    """The process-wide runner."""
    return _RUNNER
