"""Results: of one check, of a test case (one step), of a scenario, of a suite.

Results are built on the hot path thousands of times per run, so the constructors skip
validation (the values are ours, already the right types) and pydantic's
`model_construct` too: see construct.py.
"""

from __future__ import annotations

from collections import defaultdict
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic

from pydantic import BaseModel, ConfigDict, Field, computed_field

from .construct import (
    _new,
    _set_dict,
    _set_extra,
    _set_fields_set,
    _set_private,
    construct,
    field_count,
    fields_set_on_demand,
    unread_fields_set,
)
from .trace import Trace, TraceType
from .usage import Usage

if TYPE_CHECKING:
    from ..scenarios.suite import Suite


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

    model_config = ConfigDict(defer_build=True)

    name: str
    value: float


class Reportable:
    """`print_report()`: the result rendered with rich (see report.py)."""

    __slots__ = ()
    # The function of report.py that renders this class (report.py needs no result class).
    _renderer: ClassVar[str]

    def print_report(self, console: Any = None) -> None:
        from rich.console import Console

        (console or Console()).print(self)

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from . import report

        render: Any = getattr(report, self._renderer)
        return render(self, console, options)


@fields_set_on_demand
class CheckResult(Reportable, Outcome, BaseModel):
    """Outcome of one check with a message saying why."""

    _renderer: ClassVar[str] = "render_check"

    model_config = ConfigDict(defer_build=True, frozen=True)

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
        if cls is _PLAIN_RESULT:  # _make's usual case, one call fewer (one per check run)
            return _plain_result(_PASS, message, details, metrics)
        return cls._make(CheckStatus.PASS, message, details, metrics)

    @classmethod
    def failure(
        cls,
        message: str | None = None,
        details: dict[str, Any] | None = None,
        metrics: list[Metric] | None = None,
    ) -> CheckResult:
        if cls is _PLAIN_RESULT:  # _make's usual case, one call fewer (one per check run)
            return _plain_result(_FAIL, message, details, metrics)
        return cls._make(CheckStatus.FAIL, message, details, metrics)

    @classmethod
    def error(
        cls,
        message: str | None = None,
        details: dict[str, Any] | None = None,
        metrics: list[Metric] | None = None,
    ) -> CheckResult:
        if cls is _PLAIN_RESULT:  # _make's usual case, one call fewer (one per check run)
            return _plain_result(_ERROR, message, details, metrics)
        return cls._make(CheckStatus.ERROR, message, details, metrics)

    @classmethod
    def skip(
        cls,
        message: str | None = None,
        details: dict[str, Any] | None = None,
        metrics: list[Metric] | None = None,
    ) -> CheckResult:
        if cls is _PLAIN_RESULT:  # _make's usual case, one call fewer (one per check run)
            return _plain_result(_SKIP, message, details, metrics)
        return cls._make(CheckStatus.SKIP, message, details, metrics)


_PASS, _FAIL = CheckStatus.PASS, CheckStatus.FAIL
_ERROR, _SKIP = CheckStatus.ERROR, CheckStatus.SKIP
_RESULT_FIELDS = ("status", "message", "metrics", "details")
# CheckResult itself, when it is as _plain_result expects (checked once, here); a
# subclass, or a changed CheckResult, goes through construct() in _make.
_PLAIN_RESULT = (
    CheckResult
    if field_count(CheckResult) >= 0 and tuple(CheckResult.__pydantic_fields__) == _RESULT_FIELDS
    else None
)
# The fields set of every result _plain_result builds (made when read: construct.py).
_RESULT_FIELDS_SET = unread_fields_set(CheckResult, _RESULT_FIELDS)


_PHASE_WORDS = {"input_generation": "interaction"}


def _parse_tag(tag: str) -> tuple[str, str]:
    """A `key:value` tag as (key, value), split at the first colon; no colon: (tag, "")."""
    key, _, value = tag.partition(":")
    return key, value


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
    _set_fields_set(result, _RESULT_FIELDS_SET)
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
    model_config = ConfigDict(defer_build=True, frozen=True)

    message: str
    exception_type: str
    traceback: str | None = None
    phase: str | None = None

    @classmethod
    def from_exception(cls, exc: BaseException, phase: str | None = None) -> TestCaseError:
        import traceback as tb  # here: only an error needs it (start-up of every command)

        return cls(
            message=str(exc) or repr(exc),
            exception_type=type(exc).__name__,
            traceback="".join(tb.format_exception(exc)),
            phase=phase,
        )

    def summary(self) -> str:
        """`<ExceptionType>[ during <phase>]: <message>`."""
        # "input_generation" (an interaction that could not be generated) reads "interaction".
        named = _PHASE_WORDS.get(self.phase, self.phase) if self.phase else None
        phase = f" during {named}" if named else ""
        return f"{self.exception_type}{phase}: {self.message}"

    def rich_line(self, color: str) -> str:
        """This error as a rich-markup row under a step, in the given color."""
        from rich.markup import escape

        return (
            f"[{color} bold]Test case[/{color} bold]\t[{color}]ERROR[/{color}]\t"
            f"{escape(self.summary())}"
        )


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


@fields_set_on_demand
class TestCaseResult(Reportable, Outcome, BaseModel):
    """Results of the checks of one test case (one scenario step)."""

    _renderer: ClassVar[str] = "render_test_case"

    __test__ = False
    model_config = ConfigDict(defer_build=True, frozen=True)

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
        """One line per check that did not pass: `<check> FAILED|ERRORED|SKIPPED: <why>`.

        Skipped checks are listed too: they reached no verdict either.
        """
        lines: list[str] = []
        if self.error is not None:
            lines.append(f"Test case ERRORED: {self.error.summary()}")
        for index, result in enumerate(self.results):
            if result.passed:
                continue
            name = (
                self.check_names[index]
                if index < len(self.check_names)
                else result.details.get("check_name")
                or result.details.get("check_kind", "Unknown check")
            )
            verb = _PAST_TENSE[result.status.value].upper()
            lines.append(f"{name} {verb}: {result.message or 'No specific error message provided'}")
        return lines

    def assert_passed(self) -> None:
        """Raise AssertionError listing each check that did not pass."""
        if not self.passed:
            raise AssertionError(
                "Test case failed with the following errors:\n" + "\n".join(self.format_failures())
            )


_PAST_TENSE = {"fail": "failed", "error": "errored", "skip": "skipped", "pass": "passed"}
_VERBS = {"fail": "failed", "error": "errored", "skip": "was skipped", "pass": "passed"}


@fields_set_on_demand
class ScenarioResult(Reportable, Outcome, BaseModel, Generic[TraceType]):
    """Outcome of a scenario run: one TestCaseResult per step and the final trace."""

    _renderer: ClassVar[str] = "render_scenario"

    model_config = ConfigDict(defer_build=True, frozen=True, arbitrary_types_allowed=True)

    scenario_name: str
    steps: list[TestCaseResult]
    duration_ms: int = 0
    final_trace: TraceType = Field(default_factory=Trace)  # type: ignore[assignment]
    multiple_runs: int = Field(
        default=1, description="Most full runs this invocation allowed (multiple_runs)."
    )
    runs_executed: int = Field(
        default=1, description="Full runs made before stopping (at most multiple_runs)."
    )
    tags: list[str] = Field(default_factory=list)
    replayed: bool = Field(
        default=False, description="True when recorded outputs were replayed (no target)."
    )
    usage: Usage | None = Field(
        default=None,
        description="What its model calls cost (judges, simulated users); None: no call.",
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


class SuiteResult(Reportable, BaseModel):
    """Results of the scenarios of a suite, with counts, pass rate and exports."""

    _renderer: ClassVar[str] = "render_suite"

    model_config = ConfigDict(defer_build=True, frozen=True, arbitrary_types_allowed=True)

    # Unparametrized: parametrized generics would make validation copy every instance.
    results: list[ScenarioResult] = Field(description="One result per scenario, in order.")
    duration_ms: int = Field(description="Total execution time in milliseconds.")
    suite: Suite | None = Field(
        default=None, exclude=True, description="The suite that produced this result."
    )
    recommendation: str | None = Field(
        default=None, description="Optional Markdown guidance shown with the report."
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed_count(self) -> int:
        return sum(1 for r in self.results if r.passed)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def failed_count(self) -> int:
        return sum(1 for r in self.results if r.failed)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def errored_count(self) -> int:
        return sum(1 for r in self.results if r.errored)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def skipped_count(self) -> int:
        return sum(1 for r in self.results if r.skipped)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pass_rate(self) -> float | None:
        """Passed / (all - skipped); None when no scenario reached a verdict."""
        evaluated = len(self.results) - self.skipped_count
        return None if evaluated == 0 else self.passed_count / evaluated

    @property
    def failures_and_errors(self) -> list[ScenarioResult[Any]]:
        return [r for r in self.results if r.failed or r.errored]

    def to_junit_xml(self, path: str | Path | None = None) -> str:
        """JUnit XML text (one testcase per scenario); also written to `path` if given."""
        from .junit_xml import to_junit_xml

        return to_junit_xml(self, path=path)

    def to_hub_format(self) -> dict[str, Any]:
        """The result as JSON-ready data (the Giskard Hub upload payload shape)."""
        from .hub_payload import to_hub_format

        return to_hub_format(self)

    def group_by(self, key: str) -> GroupedSuiteResult:
        """Counts per value of the `key:` tags; untagged scenarios go under None.

        A scenario with two values for the key counts in both groups.
        """
        buckets: defaultdict[str | None, dict[str, int]] = defaultdict(
            lambda: {"passed": 0, "failed": 0, "errored": 0, "skipped": 0}
        )
        for result in self.results:
            values: set[str | None] = {
                value for tag_key, value in map(_parse_tag, result.tags) if tag_key == key
            }
            for value in values or {None}:
                bucket = buckets[value]
                outcome = (
                    "passed"
                    if result.passed
                    else "errored"
                    if result.errored
                    else "skipped"
                    if result.skipped
                    else "failed"
                )
                bucket[outcome] += 1
        groups = {name: GroupStats(name=name, **counts) for name, counts in buckets.items()}
        return GroupedSuiteResult(suite_result=self, key=key, groups=groups)

    def print_report(self, console: Any = None, group_by: str | None = None) -> None:
        """Print the report; with `group_by`, add a pass-rate table per tag value."""
        from rich.console import Console

        (console or Console()).print(self.group_by(group_by) if group_by is not None else self)


class GroupStats(BaseModel):
    """Counts of one tag-value group of a suite result."""

    model_config = ConfigDict(defer_build=True, frozen=True)

    name: str | None
    passed: int
    failed: int
    errored: int
    skipped: int = 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errored + self.skipped

    @computed_field  # type: ignore[prop-decorator]
    @property
    def non_skipped(self) -> int:
        return self.total - self.skipped

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pass_rate(self) -> float | None:
        return None if self.non_skipped == 0 else self.passed / self.non_skipped


class GroupedSuiteResult(Reportable, BaseModel):
    """A suite result grouped by a tag key: per-group stats and a report table."""

    _renderer: ClassVar[str] = "render_grouped"

    model_config = ConfigDict(defer_build=True, frozen=True)

    suite_result: SuiteResult
    key: str
    groups: dict[str | None, GroupStats]
