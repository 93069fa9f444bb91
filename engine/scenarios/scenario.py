"""Scenario: steps of interactions and checks run over one growing trace.

A step adds its interactions to the trace, then runs all its checks. A step that
does not pass (fails, errors, or has all its checks skipped) ends the conversation, as
in the original library: later steps are SKIP and their interactions never run. The scenario status is ERROR over FAIL over PASS.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Any, Generic, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializeAsAny,
    WithJsonSchema,
    field_serializer,
)
from pydantic.json_schema import SkipJsonSchema

from ..core.bulk import BulkValidator
from ..core.check import Check
from ..core.comments import ScenarioComment
from ..core.construct import construct, fields_set_on_demand
from ..core.exceptions import InteractionGenerationError
from ..core.gcpause import running_scenarios
from ..core.result import (
    CheckResult,
    CheckStatus,
    ScenarioResult,
    TestCaseError,
    TestCaseResult,
    TestCaseStatus,
)
from ..core.run_sync import run_sync as run_blocking
from ..core.sentinel import MISSING
from ..core.trace import Trace, TraceType, infer_trace_type
from ..core.typevars import InputType, OutputType
from ..imports import SEARCH_PATHS
from ..interactions import Interact, InteractionSpec, Target
from ..targets import TARGET_PATTERN

_clock_ns = time.perf_counter_ns
_STOPS = (TestCaseStatus.FAIL, TestCaseStatus.ERROR, TestCaseStatus.SKIP)
_ERROR = CheckStatus.ERROR
# A step that ran leaves skip_reason at its default, outside the fields set.
_UNSET_SKIP_REASON = ("skip_reason",)
# A single run leaves the multi-run counters at their defaults, outside the fields set.
_UNSET_RUNS = ("multiple_runs", "runs_executed")


def _step_skip(why: str) -> CheckResult:
    """The one SKIP of a step without checks that did not run, named `step` (as 1.0.6)."""
    return CheckResult.skip(why, {"check_kind": "step", "check_name": "step"})


@fields_set_on_demand
class Step(BaseModel, Generic[InputType, OutputType, TraceType]):
    """Interactions to add, then the checks that judge the trace at that point."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    interacts: list[SerializeAsAny[InteractionSpec[InputType, OutputType, TraceType]]] = Field(
        default_factory=list, description="Interactions added to the trace by this step."
    )
    checks: list[SerializeAsAny[Check[InputType, OutputType, TraceType]]] = Field(
        default_factory=list, description="Checks run after this step's interactions."
    )

    def skipped(self, why: str) -> TestCaseResult:
        # A step without checks still reports one SKIP, so no step reads as passed.
        return TestCaseResult.model_construct(
            results=[CheckResult.skip(why) for _ in self.checks] or [_step_skip(why)],
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
                trace = await spec._extend(trace, target)  # noqa: SLF001 (the run loop's hook on specs (the reference library's protocol))
        except Exception as exc:
            failure: BaseException = exc
            if isinstance(exc, InteractionGenerationError):  # keep what was generated
                trace, failure = exc.partial_trace, exc.__cause__ or exc
            if not return_exception:
                if failure is exc:
                    raise
                # What the interaction raised, unchanged: raising it here would chain the
                # InteractionGenerationError that carried it as its __context__.
                context, suppress = failure.__context__, failure.__suppress_context__
                try:
                    raise failure
                finally:
                    failure.__context__, failure.__suppress_context__ = context, suppress
            return TestCaseResult.model_construct(
                results=[CheckResult.skip("not run: the interaction failed") for _ in names]
                or [_step_skip("not run: the interaction failed")],
                duration_ms=_ms(started),
                # The partial trace's last interaction, as 1.0.6 records it.
                last_interaction_index=len(trace.interactions) - 1 if trace.interactions else None,
                error=TestCaseError.from_exception(failure, phase="input_generation"),
                check_names=names,
            ), trace
        durations: list[float] = []
        results = await run_checks(self.checks, trace, return_exception, durations)
        added = len(trace.interactions) > before
        return construct(
            TestCaseResult,
            {
                "results": results,
                "duration_ms": _ms(started),
                "last_interaction_index": len(trace.interactions) - 1 if added else None,
                "error": None,
                "check_names": names,
                "skip_reason": None,
                "check_durations_ms": durations,
            },
            unset=_UNSET_SKIP_REASON,
        ), trace


async def run_checks(
    checks: Sequence[Check],
    trace: Trace,
    return_exception: bool,
    durations: list[float] | None = None,
) -> list[CheckResult]:
    """Run checks in order; with return_exception a raising check becomes an ERROR.

    `durations`, when given, receives each check's time in milliseconds (editors show it).
    """
    results: list[CheckResult] = []
    for check in checks:
        started = _clock_ns()
        if not check.enabled:  # `enabled: false`: kept in the file, never run
            results.append(CheckResult.skip("disabled (enabled: false)"))
            if durations is not None:
                durations.append(0.0)
            continue
        try:
            result = await check.run(trace)
        except Exception as exc:
            if not return_exception:
                raise
            result = crashed_check_result(check, exc)
        else:
            if result.status is _ERROR and "check_kind" not in result.details:
                # Say which check could not reach a verdict (rare: not on the hot path).
                result = result.model_copy(
                    update={
                        "details": {
                            **result.details,
                            "check_kind": check.kind,
                            "check_name": check.name,
                        }
                    }
                )
        results.append(result)
        if durations is not None:
            # Milliseconds to the microsecond, in integers: round(seconds * 1000, 3) took
            # three times as long (one per check run).
            durations.append((_clock_ns() - started + 500) // 1000 / 1000)
    return results


def crashed_check_result(check: Check, exc: BaseException) -> CheckResult:
    """The ERROR of a check that raised, worded and detailed as the reference runner's.

    The step itself ran: TestCaseResult.error is kept for interactions that failed.
    """
    import traceback as tb  # here: only a crash needs it (validating scenarios none)

    return CheckResult.error(
        f"Check '{check.name or check.kind}' failed with error: {exc}",
        {
            "traceback": "".join(tb.format_exception(exc)),
            "exception_type": type(exc).__name__,
            "check_kind": check.kind,
            "check_name": check.name,
        },
    )


def _ms(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)


@fields_set_on_demand
class Scenario(BaseModel, Generic[InputType, OutputType, TraceType]):
    """A named conversation with checks; build it fluently or from its serialized form."""

    model_config = ConfigDict(defer_build=True, extra="forbid", arbitrary_types_allowed=True)

    name: str = Field(default="Unnamed Scenario", description="Scenario name.")
    description: str | None = Field(default=None, description="What the scenario tests.")
    target: Annotated[
        Callable[..., Any] | str | MISSING | None,
        WithJsonSchema({"type": ["string", "null"], "pattern": TARGET_PATTERN}),
    ] = Field(
        default=MISSING,
        description=(
            "The agent to call: 'python:package.module:function' or an http(s) URL. "
            "Without one, recorded outputs are replayed."
        ),
    )
    tags: list[str] = Field(default_factory=list, description="Labels for filtering runs.")
    annotations: dict[str, Any] = Field(
        default_factory=dict, description="Values injected into the trace as trace.annotations."
    )
    steps: list[Step[InputType, OutputType, TraceType]] = Field(
        default_factory=list, description="Steps: interactions, then the checks on them."
    )
    trace_type: Annotated[type[TraceType] | None, SkipJsonSchema()] = Field(
        default=None,
        exclude=True,  # a Python class, not data: never written to files
        description=(
            "Trace class to build (a Trace subclass); default: the type the target's "
            "second parameter is annotated with, else Trace."
        ),
    )
    multiple_runs: int = Field(
        default=1,
        ge=1,
        strict=True,
        description=(
            "Run the whole scenario up to this many times (a fresh trace each time) while "
            "every run passes; the result is the last run's. Not a retry-until-pass."
        ),
    )
    status: Literal["active", "draft"] | None = Field(
        default=None,
        description="draft: not run by `checkspec run` unless --include-drafts (e.g. generated).",
    )
    comments: list[ScenarioComment] = Field(
        default_factory=list, description="Review comments (`checkspec comment`); never run."
    )

    # Folders a relative python: target is resolved against (set by the file loader).
    _base_dirs: tuple[str, ...] = PrivateAttr(default=())
    # Seconds a string target may take per call (set by the file loader from settings).
    _target_timeout: float | None = PrivateAttr(default=None)

    def __init__(self, name: str | None = None, /, **data: Any) -> None:
        if name is not None:
            data["name"] = name
        super().__init__(**data)

    @classmethod
    def model_validate(
        cls,
        obj: Any,
        *,
        strict: bool | None = None,
        extra: Any = None,
        from_attributes: bool | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Scenario:
        """BaseModel.model_validate; a dict without options tries the bulk validator first
        (core/bulk.py: its checks dispatched in Rust), which falls back to this."""
        if (
            cls is Scenario
            and type(obj) is dict
            and strict is None
            and extra is None
            and from_attributes is None
            and context is None
            and by_alias is None
            and by_name is None
        ):
            built = _BULK.validate(obj)
            if built is not None:
                return built
        return super().model_validate(
            obj,
            strict=strict,
            extra=extra,
            from_attributes=from_attributes,
            context=context,
            by_alias=by_alias,
            by_name=by_name,
        )

    @property
    def base_dirs(self) -> tuple[str, ...]:
        """Folders `python:` targets and `fn` references are imported from (a spec file's
        folder and its workspace root); none for a scenario built in Python."""
        return self._base_dirs

    @property
    def target_timeout(self) -> float | None:
        """Seconds a target may take per interaction, as its file's settings say (None: the
        default)."""
        return self._target_timeout

    def placed(self, base_dirs: Sequence[str], target_timeout: float | None = None) -> Scenario:
        """A copy that imports from `base_dirs` (and gives targets `target_timeout` seconds,
        when given): how front ends run a scenario read from a file."""
        copy = self.model_copy()
        copy._base_dirs = tuple(base_dirs)  # noqa: SLF001 (a copy of this class)
        if target_timeout is not None:
            copy._target_timeout = target_timeout  # noqa: SLF001 (a copy of this class)
        return copy

    @field_serializer("target")
    def _dump_target(self, target: Any) -> Any:  # a string, None or MISSING (left out)
        if target is None or target is MISSING or isinstance(target, str):
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
        spec: Interact[Any, Any, Any] = Interact(
            inputs=inputs, outputs=outputs, metadata=metadata or {}
        )
        return self.add_interaction(spec)

    def add_interaction(self, interaction: InteractionSpec) -> Scenario:
        self._last_step(for_interaction=True).interacts.append(interaction)
        return self

    def add_interactions(self, *interactions: InteractionSpec) -> Scenario:
        """Add several interaction specs to the current step."""
        self._last_step(for_interaction=True).interacts.extend(interactions)
        return self

    def append(self, component: InteractionSpec | Check) -> Scenario:
        """Add a check or an interaction spec, whichever it is."""
        if isinstance(component, Check):
            return self.check(component)
        return self.add_interaction(component)

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
            self.append(component)
        return self

    def with_target(self, target: Target | str) -> Scenario:
        self.target = target
        return self

    def with_tags(self, tags: list[str]) -> Scenario:
        """Set the tags ('Key:Value' or bare labels)."""
        self.tags = tags
        return self

    def with_annotations(self, annotations: dict[str, Any]) -> Scenario:
        """Set the annotations the trace carries as trace.annotations."""
        self.annotations = annotations
        return self

    # Running ----------------------------------------------------------------------

    @property
    def replays(self) -> bool:
        """True when running it replays recorded outputs (no target anywhere)."""
        return self._own_target() is None

    def _own_target(self) -> Target | str | None:
        return None if self.target is MISSING else self.target

    def _empty_trace(self, target: Any) -> Trace:
        """The trace a run starts from: trace_type, else the target's trace type."""
        trace_type = self.trace_type
        if trace_type is None and callable(target):
            trace_type = infer_trace_type(target)
        if trace_type is None or trace_type is Trace:
            return construct(Trace, {"interactions": [], "annotations": dict(self.annotations)})
        return trace_type(annotations=dict(self.annotations))

    async def run(
        self,
        target: Target | str | MISSING | None = MISSING,
        return_exception: bool = False,
        multiple_runs: int | None = None,
    ) -> ScenarioResult:
        """Run every step. Exceptions propagate unless `return_exception` is True.

        With `multiple_runs` (or the field) above 1 the scenario runs again, on a fresh
        trace, while every run passes; the result is the last run's.
        """
        running_scenarios()  # fewer collections while a batch runs (core/gcpause.py)
        if target is MISSING:
            target = None
        if multiple_runs is None and self.multiple_runs == 1 and not _private(self, "_base_dirs"):
            return await self._run(target, return_exception)  # the usual case, one call
        runs = _runs(multiple_runs) or self.multiple_runs
        if runs == 1:
            return await self._run_in_paths(target, return_exception)
        started = time.perf_counter()
        from ..llm.usage import Meter  # run time only: validating never loads it

        with Meter() as meter:  # every run's model calls, not the last one's alone
            for attempt in range(1, runs + 1):
                result = await self._run_in_paths(target, return_exception)
                if not result.passed or attempt == runs:
                    break
        return result.model_copy(
            update={
                "duration_ms": _ms(started),
                "multiple_runs": runs,
                "runs_executed": attempt,
                "usage": meter.usage if meter.counted else None,
            }
        )

    def run_sync(self, *args: Any, **kwargs: Any) -> ScenarioResult:
        """`run(...)` from synchronous code (not inside a running event loop)."""
        return run_blocking(self.run, *args, **kwargs)

    async def _run_in_paths(
        self, target: Target | str | None, return_exception: bool
    ) -> ScenarioResult:
        if not self._base_dirs:
            return await self._run(target, return_exception)
        token = SEARCH_PATHS.set(self._base_dirs)
        try:
            return await self._run(target, return_exception)
        finally:
            SEARCH_PATHS.reset(token)

    async def _run(self, target: Target | str | None, return_exception: bool) -> ScenarioResult:
        from ..llm.usage import Meter

        with Meter() as meter:
            result = await self._steps(target, return_exception)
        if not meter.counted:
            return result
        return result.model_copy(update={"usage": meter.usage})

    async def _steps(self, target: Target | str | None, return_exception: bool) -> ScenarioResult:
        started = time.perf_counter()
        chosen = target if target is not None else self._own_target()
        trace = self._empty_trace(chosen)
        results: list[TestCaseResult] = []
        try:
            if isinstance(chosen, str) and chosen.startswith("python:"):
                from ..core.user_thread import in_own_thread

                # The target's module is imported off the event loop: one that sleeps at
                # import holds its own thread, not the other scenarios (docs/decisions.md,
                # "Where user code runs").
                resolved = await in_own_thread(self._resolve, chosen)
            else:
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
        from ..targets import resolve_target  # deferred: urllib and http.client, for runs only

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
                "multiple_runs": 1,
                "runs_executed": 1,
                "tags": list(self.tags),
                "replayed": target is None,
                "usage": None,
            },
            unset=_UNSET_RUNS,
        )


# Scenario.model_validate's first try: Scenario and Step built by it, checks and
# interactions dispatched by kind in Rust.
_BULK = BulkValidator(Scenario, Step)


def _private(model: BaseModel, name: str) -> Any:
    """`model.<name>` for a private attribute, read where pydantic keeps it.

    The attribute itself goes through BaseModel.__getattr__, which first asks the
    attribute's declaration for `__get__` (an AttributeError raised and caught): ~2 µs.
    """
    private = model.__pydantic_private__
    if private is not None and name in private:
        return private[name]
    return getattr(model, name)


def _runs(value: int | None) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("multiple_runs must be an integer greater than or equal to 1")
    if value < 1:
        raise ValueError("multiple_runs must be greater than or equal to 1")
    return value


async def run_scenarios(
    scenarios: Iterable[Scenario],
    *,
    concurrency: int = 8,
    target: Target | str | None = None,
    return_exception: bool = True,
) -> list[ScenarioResult]:
    """Run scenarios concurrently (at most `concurrency` at once); results keep their order."""
    import asyncio  # here: asyncio costs start-up that validating a file need not pay

    semaphore = asyncio.Semaphore(max(1, concurrency))

    async def one(scenario: Scenario) -> ScenarioResult:
        async with semaphore:
            return await scenario.run(target=target, return_exception=return_exception)

    return list(await asyncio.gather(*(one(s) for s in scenarios)))
