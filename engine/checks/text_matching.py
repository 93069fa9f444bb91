"""string_matching and regex_matching."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from ..core.check import Check, FieldIssue
from ..core.jsonpath import JSONPathStr, NoMatch, resolve
from ..core.normalization import NormalizationForm, normalize_string
from ..core.result import CheckResult
from ..core.sentinel import MISSING
from ..core.timed_regex import search as timed_search
from ..core.trace import Trace

if TYPE_CHECKING:
    import regex


def exactly_one(model: Check, value_field: str, key_field: str) -> None:
    """Raise when both or neither of an inline value and its selector are given."""
    has_value = getattr(model, value_field) is not MISSING
    has_key = getattr(model, key_field) is not MISSING
    if has_value == has_key:
        which = "both were given" if has_value else "neither was given"
        raise PydanticCustomError(
            "exactly_one",
            # The reference library's wording, then which of the two cases it is.
            "Exactly one of '{value_field}' or '{key_field}' must be provided, not both or "
            "neither ({which})",
            {"value_field": value_field, "key_field": key_field, "which": which},
        )


class TextCheck(Check):
    """Shared extraction of the text under test and the matcher (keyword / pattern)."""

    text: str | MISSING = Field(
        default=MISSING,
        description="Literal text to search in; when omitted the text comes from target_key.",
    )
    target_key: JSONPathStr = Field(
        default="trace.last.outputs",
        description="JSONPath to the text under test.",
    )

    def _extract(
        self, trace: Trace, value: Any, key: Any, what: str
    ) -> tuple[str, str, dict[str, Any]] | CheckResult:
        # provided_or_resolve, inlined: an inline value wins, else the selector.
        text = self.text
        target_key = self.target_key
        if target_key is not MISSING and text is MISSING:
            text = resolve(trace, target_key)
        matcher = value if key is MISSING or value is not MISSING else resolve(trace, key)
        details = {"text": text, what: matcher}
        if isinstance(matcher, NoMatch):
            return CheckResult.error(f"No value found for {what} key '{key}'.", details)
        if not isinstance(matcher, str):
            return CheckResult.error(
                f"Value for {what} is not a string, expected string but got "
                f"{type(matcher).__name__}.",
                details,
            )
        if isinstance(text, NoMatch):
            return CheckResult.error(f"No value found for text key '{self.target_key}'.", details)
        if not isinstance(text, str):
            return CheckResult.error(
                f"Value for text is not a string, expected string but got {type(text).__name__}.",
                details,
            )
        return text, matcher, details


@Check.register("string_matching")
class StringMatching(TextCheck):
    """Passes when the keyword occurs in the text (after normalization)."""

    keyword: str | MISSING = Field(
        default=MISSING, description="Substring to search for (or use keyword_key)."
    )
    keyword_key: JSONPathStr | MISSING = Field(
        default=MISSING, description="JSONPath to the keyword in the trace."
    )
    normalization_form: NormalizationForm | None = Field(
        default="NFKC", description="Unicode normalization applied before matching."
    )
    case_sensitive: bool = Field(default=True, description="Whether matching is case-sensitive.")

    exactly_one_of: ClassVar[tuple[tuple[str, str], ...]] = (("keyword", "keyword_key"),)

    @model_validator(mode="after")
    def validate_keyword_or_keyword_key(self) -> StringMatching:
        # Both or neither given (exactly_one says which): tested here first, as this
        # runs for every check built.
        if (self.keyword is MISSING) is (self.keyword_key is MISSING):
            exactly_one(self, *self.exactly_one_of[0])
        return self

    def _format(self, value: str) -> str:
        value = normalize_string(value, self.normalization_form)
        return value if self.case_sensitive else value.lower()

    async def run(self, trace: Trace) -> CheckResult:
        extracted = self._extract(trace, self.keyword, self.keyword_key, "keyword")
        if isinstance(extracted, CheckResult):
            return extracted
        text, keyword, details = extracted
        details["normalization_form"] = self.normalization_form
        details["case_sensitive"] = self.case_sensitive
        if self._format(keyword) in self._format(text):
            return CheckResult.success(f"The answer contains the keyword '{keyword}'.", details)
        return CheckResult.failure(f"The answer does not contain the keyword '{keyword}'", details)


@lru_cache(maxsize=1024)
def compile_regex(pattern: str) -> regex.Pattern[str]:
    """Compile once per pattern; raises regex.error for a bad pattern."""
    import regex  # deferred: start-up does not load the regex engine

    return regex.compile(pattern)


def regex_error() -> type[Exception]:
    """regex.error, imported when a pattern is compiled (see compile_regex)."""
    import regex

    return regex.error


@Check.register("regex_matching")
class RegexMatching(TextCheck):
    """Passes when the regular expression matches somewhere in the text."""

    pattern: str | MISSING = Field(
        default=MISSING, description="Regular expression (or use pattern_key)."
    )
    pattern_key: JSONPathStr | MISSING = Field(
        default=MISSING, description="JSONPath to the pattern in the trace."
    )
    match_timeout_seconds: float = Field(
        default=1.0,
        gt=0,
        description="Upper bound on how long matching may take before the check errors.",
    )

    exactly_one_of: ClassVar[tuple[tuple[str, str], ...]] = (("pattern", "pattern_key"),)

    @model_validator(mode="after")
    def validate_pattern_or_pattern_key(self) -> RegexMatching:
        # Both or neither given (exactly_one says which): tested here first, as this
        # runs for every check built.
        if (self.pattern is MISSING) is (self.pattern_key is MISSING):
            exactly_one(self, *self.exactly_one_of[0])
        return self

    def lint(self) -> list[FieldIssue]:
        if not isinstance(self.pattern, str):
            return []
        try:
            compile_regex(self.pattern)
        except regex_error() as exc:
            message = str(exc).split(" at position")[0]
            line, column = _line_col(self.pattern, getattr(exc, "pos", None))
            return [
                FieldIssue("pattern", "regex-syntax", f"invalid regex: {message}", line, column)
            ]
        return []

    async def run(self, trace: Trace) -> CheckResult:
        extracted = self._extract(trace, self.pattern, self.pattern_key, "pattern")
        if isinstance(extracted, CheckResult):
            return extracted
        text, pattern, details = extracted
        try:
            # Stopped at the deadline in wall time (see timed_regex.py), so a
            # catastrophic pattern cannot hang the run.
            matched = timed_search(compile_regex(pattern), text, self.match_timeout_seconds)
        except TimeoutError:
            return CheckResult.error(
                f"Regex matching exceeded timeout of {self.match_timeout_seconds}s "
                f"for pattern '{pattern}'.",
                details,
            )
        except regex_error() as exc:
            return CheckResult.error(f"Invalid regex pattern '{pattern}': {exc}", details)
        if matched:
            return CheckResult.success(f"Text matches the regex pattern '{pattern}'.", details)
        return CheckResult.failure(f"Text does not match the regex pattern '{pattern}'.", details)


def _line_col(text: str, offset: int | None) -> tuple[int | None, int | None]:
    """0-based line and column of a character offset in text."""
    if offset is None:
        return None, None
    before = text[:offset]
    line = before.count("\n")
    return line, offset - (before.rfind("\n") + 1)
