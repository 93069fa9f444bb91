"""equals, not_equals, greater_than(_equals), less_than(_equals).

Values are Unicode-normalized (strings inside dicts/lists too) before comparing.
An unsupported comparison (`3 < "a"`) is an ERROR, not a FAIL: the assertion could
not be evaluated. With `match`, the resolved value must be a list/set/tuple and the
comparison applies to its items (any / all / none).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, ClassVar, Generic, Literal

from pydantic import Field, model_validator

from ..core.check import Check
from ..core.jsonpath import JSONPathStr, NoMatch, resolve
from ..core.normalization import NormalizationForm, normalize_data
from ..core.result import CheckResult
from ..core.sentinel import MISSING
from ..core.trace import Trace, TraceType
from ..core.typevars import ExpectedType, InputType, OutputType
from .text_matching import exactly_one

MatchMode = Literal["any", "all", "none"]

# Dataset files point the numeric checks at the response metadata's score.
NUMERIC_DATASET_KEY = "trace.last.outputs.metadata.score"


class ComparisonCheck(Check, Generic[InputType, OutputType, TraceType, ExpectedType]):
    """Compare the value at `target_key` with an expected value.

    Generic in a fourth parameter too, the expected value's type (`Equals[str, str,
    Trace, int]`), as in the reference library.
    """

    _op: ClassVar[Callable[[Any, Any], Any]]
    _words: ClassVar[str]
    _symbol: ClassVar[str]

    target_key: JSONPathStr = Field(
        default="trace.last.outputs", description="JSONPath to the actual value under test."
    )
    expected_value: Any | MISSING = Field(
        default=MISSING,
        description="Static expected value (explicit null compares against null).",
    )
    expected_value_key: JSONPathStr | MISSING = Field(
        default=MISSING, description="JSONPath to the expected value in the trace."
    )
    normalization_form: NormalizationForm | None = Field(
        default="NFKC", description="Unicode normalization applied before comparing."
    )
    match: MatchMode | MISSING = Field(
        default=MISSING,
        description=(
            "For a list/set/tuple value: 'any' passes if one item matches, 'all' if every "
            "item matches, 'none' if no item matches. Omitted: compare the value itself."
        ),
    )

    exactly_one_of: ClassVar[tuple[tuple[str, str], ...]] = (
        ("expected_value", "expected_value_key"),
    )

    @model_validator(mode="after")
    def validate_expected_value_or_expected_value_key(self) -> ComparisonCheck:
        # Both or neither given (exactly_one says which): tested here first, as this
        # runs for every check built.
        if (self.expected_value is MISSING) is (self.expected_value_key is MISSING):
            exactly_one(self, *self.exactly_one_of[0])
        return self

    def _compare(self, actual: Any, expected: Any) -> bool | None:
        try:
            return bool(type(self)._op(actual, expected))  # noqa: SLF001 (the class's own operator)
        except Exception:  # unsupported comparison between these types
            return None

    async def run(self, trace: Trace) -> CheckResult:
        actual = resolve(trace, self.target_key)
        expected = self.expected_value
        if expected is MISSING and (expected_key := self.expected_value_key) is not MISSING:
            expected = resolve(trace, expected_key)  # provided_or_resolve, inlined
        details = {"actual_value": actual, "expected_value": expected}
        words = self._words
        if isinstance(expected, NoMatch):
            return CheckResult.error(
                f"No value found for expected value key '{self.expected_value_key}'.", details
            )
        if isinstance(actual, NoMatch):
            return CheckResult.error(
                f"No value found for key '{self.target_key}', expected a value {words} "
                f"{expected!r}.",
                details,
            )
        norm_expected = normalize_data(expected, self.normalization_form)
        if self.match is not MISSING:
            return self._match_items(actual, expected, norm_expected, details)
        outcome = self._compare(normalize_data(actual, self.normalization_form), norm_expected)
        if outcome is None:
            return CheckResult.error(
                f"Comparison not supported: {type(actual).__name__} does not support "
                f"{self._symbol} comparison with {type(expected).__name__}",
                details,
            )
        if outcome:
            return CheckResult.success(
                f"The actual value {actual!r} is {words} the expected value {expected!r}.",
                details,
            )
        return CheckResult.failure(
            f"Expected value {words} {expected!r} but got {actual!r}", details
        )

    def _match_items(
        self, actual: Any, expected: Any, norm_expected: Any, details: dict[str, Any]
    ) -> CheckResult:
        if not isinstance(actual, list | set | tuple):
            return CheckResult.error(
                f"Expected a list, set, or tuple at key '{self.target_key}' when match is "
                f"{self.match!r}, but got {type(actual).__name__}.",
                details,
            )
        outcomes = [
            self._compare(normalize_data(item, self.normalization_form), norm_expected)
            for item in actual
        ]
        if any(o is None for o in outcomes):
            return CheckResult.error(
                f"Comparison not supported: items in {type(actual).__name__} do not support "
                f"{self._symbol} comparison with {type(expected).__name__}",
                details,
            )
        words = self._words
        if self.match == "any":
            if any(outcomes):
                return CheckResult.success(
                    f"At least one value in {actual!r} is {words} {expected!r}.", details
                )
            return CheckResult.failure(
                f"Expected at least one value {words} {expected!r} but none matched in {actual!r}.",
                details,
            )
        if self.match == "all":
            if all(outcomes):
                return CheckResult.success(
                    f"All values in {actual!r} are {words} {expected!r}.", details
                )
            return CheckResult.failure(
                f"Expected all values {words} {expected!r} but got {actual!r}.", details
            )
        matched = [item for item, o in zip(actual, outcomes, strict=True) if o]
        if not matched:
            return CheckResult.success(f"No value in {actual!r} is {words} {expected!r}.", details)
        return CheckResult.failure(
            f"Expected no value {words} {expected!r} but found matches in {matched!r}.", details
        )


@Check.register("equals")
class Equals(ComparisonCheck):
    """Passes when the value equals the expected value."""

    _op = operator.eq
    _words = "equal to"
    _symbol = "=="


@Check.register("not_equals")
class NotEquals(ComparisonCheck):
    """Passes when the value differs from the expected value."""

    _op = operator.ne
    _words = "not equal to"
    _symbol = "!="


@Check.register("greater_than")
class GreaterThan(ComparisonCheck):
    """Passes when the value is greater than the expected value."""

    dataset_overrides: ClassVar[dict[str, Any]] = {"target_key": NUMERIC_DATASET_KEY}
    _op = operator.gt
    _words = "greater than"
    _symbol = ">"


@Check.register("greater_than_equals")
class GreaterThanEquals(ComparisonCheck):
    """Passes when the value is greater than or equal to the expected value."""

    dataset_overrides: ClassVar[dict[str, Any]] = {"target_key": NUMERIC_DATASET_KEY}
    _op = operator.ge
    _words = "greater than or equal to"
    _symbol = ">="


@Check.register("less_than")
class LessThan(ComparisonCheck):
    """Passes when the value is less than the expected value."""

    dataset_overrides: ClassVar[dict[str, Any]] = {"target_key": NUMERIC_DATASET_KEY}
    _op = operator.lt
    _words = "less than"
    _symbol = "<"


@Check.register("less_than_equals")
class LessThanEquals(ComparisonCheck):
    """Passes when the value is less than or equal to the expected value."""

    dataset_overrides: ClassVar[dict[str, Any]] = {"target_key": NUMERIC_DATASET_KEY}
    _op = operator.le
    _words = "less than or equal to"
    _symbol = "<="


# The older class names of checks-reference (docs/decisions.md, "Class names": both spellings are exported).
GreaterEquals = GreaterThanEquals
LesserThan = LessThan
LesserThanEquals = LessThanEquals
