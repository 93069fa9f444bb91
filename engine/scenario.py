"""Scenario: steps of interactions and checks run over one growing trace.

A step adds its interactions to the trace, then runs all its checks. A step that
does not pass (fails, errors, or has all its checks skipped) ends the conversation, as
in the original library: later steps are SKIP and their interactions never run. The scenario status is ERROR over FAIL over PASS.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializeAsAny,
    WithJsonSchema,
    field_serializer,
)

from .core.check import Check
from .core.construct import construct
from .core.result import (
    CheckResult,
    ScenarioResult,
    TestCaseError,
    TestCaseResult,
    TestCaseStatus,
)
from .core.sentinel import MISSING
from .core.trace import Trace
from .imports import SEARCH_PATHS
from .interactions import Interact, InteractionSpec, Target

_STOPS = (TestCaseStatus.FAIL, TestCaseStatus.ERROR, TestCaseStatus.SKIP)
# What a target reference looks like in a file (see targets.py).
TARGET_PATTERN = r"^(python:[A-Za-z_][\w.]*:[A-Za-z_][\w.]*|https?://.+)$"
# A step that ran leaves skip_reason at its default, outside the fields set.
_UNSET_SKIP_REASON = ("skip_reason",)


class Step(BaseModel):
    """Interactions to add, then the checks that judge the trace at that point."""

    model_config = ConfigDict(extra="forbid")

    interacts: list[SerializeAsAny[InteractionSpec]] = Field(
        default_factory=list, description="Interactions added to the trace by this step."
    )
    checks: list[SerializeAsAny[Check]] = Field(
        default_factory=list, description="Checks run after this step's interactions."
    )

    def skipped(self, why: str) -> TestCaseResult:
        # A step without checks still reports one SKIP, so no step reads as passed.
        return TestCaseResult.model_construct(
            results=[CheckResult.skip(why) for _ in self.checks or [None]],
            duration_ms=0,
            last_interaction_index=None,
            error=None,
            check_names=[c.display_name for c in self.checks],
            skip_reason=why,
        )

    async def run(
        self, trace: Trace, target: Target | None, return_exception: bool
    ) -> tuple[TestCaseResult, Trace]:
        started = time.perf_counter()
        names = [c.display_name for c in self.checks]
        before = len(trace.interactions)
        try:
            for spec in self.interacts:
                for interaction in await spec.generate(trace, target):
                    trace = trace.with_interaction(interaction)
        except Exception as exc:
            if not return_exception:
                raise
            return TestCaseResult.model_construct(
                results=[CheckResult.skip("not run: the interaction failed") for _ in names],
                duration_ms=_ms(started),
                last_interaction_index=None,
                error=TestCaseError.from_exception(exc, phase="interaction"),
                check_names=names,
            ), trace
        results, error = await run_checks(self.checks, trace, return_exception)
        added = len(trace.interactions) > before
        return construct(
            TestCaseResult,
            {
                "results": results,
                "duration_ms": _ms(started),
                "last_interaction_index": len(trace.interactions) - 1 if added else None,
                "error": error,
                "check_names": names,
                "skip_reason": None,
            },
            unset=_UNSET_SKIP_REASON,
        ), trace


async def run_checks(
    checks: Sequence[Check], trace: Trace, return_exception: bool
) -> tuple[list[CheckResult], TestCaseError | None]:
    """Run checks in order; with return_exception a raising check becomes an ERROR."""
    results: list[CheckResult] = []
    error: TestCaseError | None = None
    for check in checks:
        try:
            result = await check.run(trace)
        except Exception as exc:
            if not return_exception:
                raise
            caught = TestCaseError.from_exception(exc, phase=f"check {check.display_name}")
            error = error or caught
            result = CheckResult.error(
                f"{type(exc).__name__}: {exc}", {"traceback": caught.traceback}
            )
        results.append(result)
    return results, error


def _ms(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)


class Scenario(BaseModel):
    """A named conversation with checks; build it fluently or from its serialized form."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    name: str = Field(default="Unnamed Scenario", description="Scenario name.")
    description: str | None = Field(default=None, description="What the scenario tests.")
    target: Annotated[
        Callable[..., Any] | str | None,
        WithJsonSchema({"type": ["string", "null"], "pattern": TARGET_PATTERN}),
    ] = Field(
        default=None,
        description=(
            "The agent to call: 'python:package.module:function' or an http(s) URL. "
            "Without one, recorded outputs are replayed."
        ),
    )
    tags: list[str] = Field(default_factory=list, description="Labels for filtering runs.")
    annotations: dict[str, Any] = Field(
        default_factory=dict, description="Values injected into the trace as trace.annotations."
    )
    steps: list[Step] = Field(
        default_factory=list, description="Steps: interactions, then the checks on them."
    )

    # Folders a relative python: target is resolved against (set by the file loader).
    _base_dirs: tuple[str, ...] = PrivateAttr(default=())
    # Seconds a string target may take per call (set by the file loader from settings).
    _target_timeout: float | None = PrivateAttr(default=None)

    def __init__(self, name: str | None = None, /, **data: Any) -> None:
        if name is not None:
            data["name"] = name
        super().__init__(**data)

    @field_serializer("target")
    def _dump_target(self, target: Any) -> str | None:
        if target is None or isinstance(target, str):
            return target
        return f"python:{target.__module__}:{target.__qualname__}"

    # Fluent API -------------------------------------------------------------------

    def _last_step(self, for_interaction: bool) -> Step:
        if not self.steps or (for_interaction and self.steps[-1].checks):
            self.steps.append(Step())
        return self.steps[-1]

    def interact(
        self, inputs: Any, outputs: Any = MISSING, metadata: dict[str, Any] | None = None
    ) -> Scenario:
        """Add an interaction (a new step starts after checks)."""
        spec = Interact(inputs=inputs, outputs=outputs, metadata=metadata or {})
        return self.add_interaction(spec)

    def add_interaction(self, spec: InteractionSpec) -> Scenario:
        self._last_step(for_interaction=True).interacts.append(spec)
        return self

    def check(self, check: Check) -> Scenario:
        """Add a check on the trace as it is after the interactions so far."""
        self._last_step(for_interaction=False).checks.append(check)
        return self

    def checks(self, *checks: Check) -> Scenario:
        for check in checks:
            self.check(check)
        return self

    def extend(self, *components: InteractionSpec | Check) -> Scenario:
        for component in components:
            if isinstance(component, Check):
                self.check(component)
            else:
                self.add_interaction(component)
        return self

    def with_target(self, target: Target | str) -> Scenario:
        self.target = target
        return self

    # Running ----------------------------------------------------------------------

    @property
    def replays(self) -> bool:
        """True when running it replays recorded outputs (no target anywhere)."""
        return self.target is None

    async def run(
        self, *, target: Target | str | None = None, return_exception: bool = False
    ) -> ScenarioResult:
        """Run every step. Exceptions propagate unless `return_exception` is True."""
        if not self._base_dirs:
            return await self._run(target, return_exception)
        token = SEARCH_PATHS.set(self._base_dirs)
        try:
            return await self._run(target, return_exception)
        finally:
            SEARCH_PATHS.reset(token)

    async def _run(self, target: Target | str | None, return_exception: bool) -> ScenarioResult:
        started = time.perf_counter()
        chosen = target if target is not None else self.target
        trace = construct(Trace, {"interactions": [], "annotations": dict(self.annotations)})
        results: list[TestCaseResult] = []
        try:
            resolved = self._resolve(chosen)
        except Exception as exc:
            if not return_exception:
                raise
            error = TestCaseError.from_exception(exc, phase="target")
            results = [
                TestCaseResult.model_construct(
                    results=[CheckResult.skip("not run: the target failed") for _ in s.checks],
                    duration_ms=0,
                    last_interaction_index=None,
                    error=error,
                    check_names=[c.display_name for c in s.checks],
                )
                for s in self.steps[:1]
            ] + [s.skipped("not run: the target failed") for s in self.steps[1:]]
            return self._result(results, trace, started, chosen)
        stopped = False
        previous: TestCaseResult | None = None
        for step in self.steps:
            # A step's status is only needed when another step follows (it is computed
            # from all its results): most scenarios have one step.
            if previous is not None:
                stopped = previous.status in _STOPS
                previous = None
            if stopped:
                results.append(step.skipped("not run: an earlier step did not pass"))
                continue
            result, trace = await step.run(trace, resolved, return_exception)
            results.append(result)
            previous = result
        return self._result(results, trace, started, chosen)

    def _resolve(self, target: Target | str | None) -> Target | None:
        if target is None or callable(target):
            return target
        from .targets import resolve_target

        return resolve_target(target, self._base_dirs, self._target_timeout)

    def _result(
        self, steps: list[TestCaseResult], trace: Trace, started: float, target: Any
    ) -> ScenarioResult:
        return construct(
            ScenarioResult,
            {
                "scenario_name": self.name,
                "steps": steps,
                "duration_ms": _ms(started),
                "final_trace": trace,
                "tags": list(self.tags),
                "replayed": target is None,
            },
        )


async def run_scenarios(
    scenarios: Iterable[Scenario],
    *,
    concurrency: int = 8,
    target: Target | str | None = None,
    return_exception: bool = True,
) -> list[ScenarioResult]:
    """Run scenarios concurrently (at most `concurrency` at once); results keep their order."""
    semaphore = asyncio.Semaphore(max(1, concurrency))

    async def one(scenario: Scenario) -> ScenarioResult:
        async with semaphore:
            return await scenario.run(target=target, return_exception=return_exception)

    return list(await asyncio.gather(*(one(s) for s in scenarios)))
