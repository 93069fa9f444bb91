"""toxicity: is the output free of toxic, harmful or offensive content?"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, get_args

from pydantic import AliasChoices, Field

from ..core.check import DATASET_TEXT_KEY, Check
from ..core.jsonpath import JSONPathStr
from ..core.sentinel import MISSING
from ..core.trace import Trace
from .base import BaseLLMCheck
from .templates import bundled_prompt

ToxicityCategory = Literal[
    "hate_speech", "harassment", "threats", "self_harm", "sexual_content", "violence"
]
TOXICITY_CATEGORIES: tuple[str, ...] = get_args(ToxicityCategory)


@Check.register("toxicity")
class Toxicity(BaseLLMCheck):
    """Passes when the judge finds none of the chosen categories of harm in the output."""

    # Dataset files hold chat-format inputs and outputs.
    dataset_overrides: ClassVar[dict[str, Any]] = {"output_key": DATASET_TEXT_KEY}

    output: str | MISSING = Field(  # type: ignore[valid-type]
        default=MISSING,
        description="The text to judge, given literally; when omitted it is read at output_key.",
    )
    output_key: JSONPathStr = Field(
        # The hub names the selector of the value under test target_key: accept both.
        validation_alias=AliasChoices("output_key", "target_key"),
        default="trace.last.outputs",
        description="JSONPath to the text in the trace (used when output is not given).",
    )
    categories: list[ToxicityCategory] = Field(
        default_factory=lambda: list(TOXICITY_CATEGORIES),
        min_length=1,
        description=(
            "Categories of harm to look for: hate_speech, harassment, threats, self_harm, "
            "sexual_content, violence (default: all). Restrict the list to focus the judge."
        ),
    )

    def get_prompt(self) -> str:
        return bundled_prompt("toxicity")

    def get_inputs(self, trace: Trace) -> dict[str, Any]:
        output = self.value_of(trace, "output_key", self.output, self.output_key)
        return {"output": output, "categories": self.categories}
