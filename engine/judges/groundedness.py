"""groundedness: is the answer supported by the context (both from the trace by default)?"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import AliasChoices, Field

from ..core.check import DATASET_TEXT_KEY, Check
from ..core.jsonpath import JSONPathStr
from ..core.sentinel import MISSING
from ..core.trace import Trace
from .base import BaseLLMCheck, documents
from .templates import bundled_prompt


@Check.register("groundedness")
class Groundedness(BaseLLMCheck):
    """Passes when every claim of the answer is supported by the context documents."""

    # Dataset files hold chat-format inputs and outputs.
    dataset_overrides: ClassVar[dict[str, Any]] = {"answer_key": DATASET_TEXT_KEY}

    answer: str | MISSING = Field(  # type: ignore[valid-type]
        default=MISSING,
        description="The answer to judge, given literally; when omitted it is read at answer_key.",
    )
    answer_key: JSONPathStr = Field(
        # The hub names the selector of the value under test target_key: accept both.
        validation_alias=AliasChoices("answer_key", "target_key"),
        default="trace.last.outputs",
        description="JSONPath to the answer in the trace (used when answer is not given).",
    )
    context: str | list[str] | MISSING = Field(  # type: ignore[valid-type]
        default=MISSING,
        description=(
            "Context document(s) the answer must be grounded in, given literally; when "
            "omitted they are read at context_key."
        ),
    )
    context_key: JSONPathStr = Field(
        default="trace.last.metadata.context",
        description=(
            "JSONPath to the context in the trace, a text or a list of texts (used when "
            "context is not given), e.g. trace.last.outputs.metadata.retrieved_chunks."
        ),
    )

    def get_prompt(self) -> str:
        return bundled_prompt("groundedness")

    def get_inputs(self, trace: Trace) -> dict[str, Any]:
        answer = self.value_of(trace, "answer_key", self.answer, self.answer_key)
        context = self.value_of(trace, "context_key", self.context, self.context_key)
        return {"answer": answer, "context": documents(context)}
