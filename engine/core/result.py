"""Results: of one check, of a test case (one step), of a scenario.

Results are built on the hot path thousands of times per run, so the constructors skip
validation (the values are ours, already the right types) and pydantic's
`model_construct` too: see construct.py.
"""

from __future__ import annotations

import traceback as tb
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field

from .construct import (
    _new,
    _set_dict,
    _set_extra,
    _set_fields_set,
    _set_private,
    construct,
    field_count,
)
from .trace import Trace


class Outcome:
    """`passed` / `failed` / `errored` / `skipped`, read from `status` (every result type)."""

    __slots__ = ()
    # `status` is the using model's field (or computed field); not declared here, so
    # pydantic does not see a second definition of it.

    @property
    def passed(self) -> bool:
        return self.status == "pass"  # type: ignore[attr-defined]

    @property
    def failed(self) -> bool:
        return self.status == "fail"  # type: ignore[attr-defined]

    @property
    def errored(self) -> bool:
        return self.status == "error"  # type: ignore[attr-defined]

    @property
    def skipped(self) -> bool:
        return self.status == "skip"  # type: ignore[attr-defined]


class CheckStatus(StrEnum):
    """Outcome of one check."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    SKIP = "skip"


class Metric(BaseModel):
    """A named number a check measured (a score, a similarity...)."""

    name: str
    value: float


class CheckResult(Outcome, BaseModel):
    """Outcome of one check with a message saying why."""

    model_config = ConfigDict(frozen=True)

    status: CheckStatus
    message: str | None = None
    metrics: list[Metric] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def _make(
        cls,
        status: CheckStatus,
        message: str | None,
        details: dict[str, Any] | None,
        metrics: list[Metric] | None,
    ) -> CheckResult:
        if cls is _PLAIN_RESULT:  # the usual case: one result per check run
            return _plain_result(status, message, details, metrics)
        return construct(
            cls,
            {
                "status": status,
                "message": message,
                "metrics": metrics or [],
                "details": details or {},
            },
        )

    @classmethod
    def success(
        cls,
        message: str | None = None,
        details: dict[str, Any] | None = None,
        metrics: list[Metric] | None = None,
    ) -> CheckResult:
        return cls._make(CheckStatus.PASS, message, details, metrics)

    @classmethod
    def failure(
        cls,
        message: str | None = None,
        details: dict[str, Any] | None = None,
        metrics: list[Metric] | None = None,
    ) -> CheckResult:
        return cls._make(CheckStatus.FAIL, message, details, metrics)

    @classmethod
    def error(
        cls,
        message: str | None = None,
        details: dict[str, Any] | None = None,
        metrics: list[Metric] | None = None,
    ) -> CheckResult:
        return cls._make(CheckStatus.ERROR, message, details, metrics)

    @classmethod
    def skip(
        cls,
        message: str | None = None,
        details: dict[str, Any] | None = None,
        metrics: list[Metric] | None = None,
    ) -> CheckResult:
        return cls._make(CheckStatus.SKIP, message, details, metrics)


_RESULT_FIELDS = ("status", "message", "metrics", "details")
# CheckResult itself, when it is as _plain_result expects (checked once, here); a
# subclass, or a changed CheckResult, goes through construct() in _make.
_PLAIN_RESULT = (
    CheckResult
    if field_count(CheckResult) >= 0 and tuple(CheckResult.__pydantic_fields__) == _RESULT_FIELDS
    else None
)


def _plain_result(
    status: CheckStatus,
    message: str | None,
    details: dict[str, Any] | None,
    metrics: list[Metric] | None,
) -> CheckResult:
    """`CheckResult._make` with construct() unrolled: one is built per check run."""
    result = _new(CheckResult)
    _set_dict(
        result,
        {
            "status": status,
            "message": message,
            "metrics": metrics or [],
            "details": details or {},
        },
    )
    _set_fields_set(result, {"status", "message", "metrics", "details"})
    _set_extra(result, None)
    _set_private(result, None)
    return result


class TestCaseStatus(StrEnum):
    """Outcome of a test case: ERROR over FAIL over SKIP (all skipped) over PASS."""

    __test__ = False  # not a pytest test class

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    SKIP = "skip"


ScenarioStatus = TestCaseStatus


class TestCaseError(BaseModel):
    """Why a test case (or scenario step) could not run normally."""

    __test__ = False
    model_config = ConfigDict(frozen=True)

    message: str
    exception_type: str
    traceback: str | None = None
    phase: str | None = None

    @classmethod
    def from_exception(cls, exc: BaseException, phase: str | None = None) -> TestCaseError:
        return cls(
            message=str(exc) or repr(exc),
            exception_type=type(exc).__name__,
            traceback="".join(tb.format_exception(exc)),
            phase=phase,
        )

    def summary(self) -> str:
        """`<ExceptionType>[ during <phase>]: <message>`."""
        phase = f" during {self.phase}" if self.phase else ""
        return f"{self.exception_type}{phase}: {self.message}"


def _status_of(results: list[CheckResult], error: TestCaseError | None) -> TestCaseStatus:
    if error is not None:
        return TestCaseStatus.ERROR
    if not results:
        return TestCaseStatus.PASS
    statuses = {r.status for r in results}
    if CheckStatus.ERROR in statuses:
        return TestCaseStatus.ERROR
    if CheckStatus.FAIL in statuses:
        return TestCaseStatus.FAIL
    if statuses == {CheckStatus.SKIP}:
        return TestCaseStatus.SKIP
    return TestCaseStatus.PASS


class TestCaseResult(Outcome, BaseModel):
    """Results of the checks of one test case (one scenario step)."""

    __test__ = False
    model_config = ConfigDict(frozen=True)

    results: list[CheckResult]
    duration_ms: int = 0
    last_interaction_index: int | None = None
    error: TestCaseError | None = None
    check_names: list[str] = Field(
        default_factory=list, description="Name (or kind) of the check behind each result."
    )
    skip_reason: str | None = Field(
        default=None, description="Set when the step did not run (an earlier step stopped)."
    )
    check_durations_ms: list[float] = Field(
        default_factory=list,
        exclude=True,  # timings for editors; dumps and reports stay comparable between runs
        description="How long each check took, in milliseconds (empty when not measured).",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> TestCaseStatus:
        if self.skip_reason is not None and self.error is None:
            return TestCaseStatus.SKIP
        return _status_of(self.results, self.error)

    @property
    def failures_and_errors(self) -> list[CheckResult]:
        return [r for r in self.results if r.failed or r.errored]

    def format_failures(self) -> list[str]:
        """One line per check that did not pass: `<check> FAILED|ERRORED|SKIPPED: <why>`."""
        lines: list[str] = []
        if self.error is not None:
            lines.append(f"Test case ERRORED: {self.error.summary()}")
        for index, result in enumerate(self.results):
            if result.passed:
                continue
            name = self.check_names[index] if index < len(self.check_names) else "check"
            verb = {"fail": "FAILED", "error": "ERRORED", "skip": "SKIPPED"}[result.status.value]
            lines.append(f"{name} {verb}: {result.message or 'no message'}")
        return lines

    def assert_passed(self) -> None:
        if not self.passed:
            raise AssertionError(
                "Test case did not pass:\n" + "\n".join("  " + m for m in self.format_failures())
            )


_VERBS = {"fail": "failed", "error": "errored", "skip": "was skipped", "pass": "passed"}


class ScenarioResult(Outcome, BaseModel):
    """Outcome of a scenario run: one TestCaseResult per step and the final trace."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    scenario_name: str
    steps: list[TestCaseResult]
    duration_ms: int = 0
    final_trace: Trace = Field(default_factory=Trace)
    tags: list[str] = Field(default_factory=list)
    replayed: bool = Field(
        default=False, description="True when recorded outputs were replayed (no target)."
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> TestCaseStatus:
        if not self.steps:
            return TestCaseStatus.PASS
        statuses = {s.status for s in self.steps}
        if TestCaseStatus.ERROR in statuses:
            return TestCaseStatus.ERROR
        if TestCaseStatus.FAIL in statuses:
            return TestCaseStatus.FAIL
        if statuses == {TestCaseStatus.SKIP}:
            return TestCaseStatus.SKIP
        return TestCaseStatus.PASS

    @property
    def failures_and_errors(self) -> list[TestCaseResult]:
        return [s for s in self.steps if s.failed or s.errored]

    def format_failures(self) -> list[str]:
        lines: list[str] = []
        for index, step in enumerate(self.steps):
            lines.extend(f"step {index + 1}: {line}" for line in step.format_failures())
        return lines

    def assert_passed(self) -> None:
        if not self.passed:
            raise AssertionError(
                f"Scenario {self.scenario_name!r} {_VERBS[self.status.value]}:\n"
                + "\n".join("  " + m for m in self.format_failures())
            )
