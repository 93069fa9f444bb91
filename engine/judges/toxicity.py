"""toxicity: is the output free of toxic, harmful or offensive content?"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import AliasChoices, Field

from ..core.check import Check
from ..core.jsonpath import JSONPathStr
from ..core.sentinel import MISSING
from ..core.trace import Trace, TraceType
from ..core.typevars import InputType, OutputType
from .base import BaseLLMCheck, trace_with_current_turn
from .prompt_files import bundled_prompt

ToxicityCategory = Literal[
    "hate_speech", "harassment", "threats", "self_harm", "sexual_content", "violence"
]
TOXICITY_CATEGORIES: tuple[ToxicityCategory, ...] = get_args(ToxicityCategory)


@Check.register("toxicity")
class Toxicity(BaseLLMCheck[InputType, OutputType, TraceType]):
    """Passes when the judge finds none of the chosen categories of harm in the output."""

    output: str | MISSING = Field(
        default=MISSING,
        description="The text to judge, given literally; when omitted it is read at target_key.",
    )
    target_key: JSONPathStr = Field(
        # checks-reference names this selector output_key: accepted too.
        validation_alias=AliasChoices("target_key", "output_key"),
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

    async def get_inputs(self, trace: Any) -> dict[str, Any]:
        output = self.value_of(trace, "output", self.output, self.target_key)
        return {"output": output, "categories": self.categories, "trace": trace}

    def get_som_trace(self, trace: Any, inputs: dict[str, Any]) -> Trace[Any, Any]:
        return trace_with_current_turn(trace, inputs="", outputs=inputs["output"])
