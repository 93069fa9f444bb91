"""groundedness: is the answer supported by the context (both from the trace by default)?"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, Field

from ..core.check import Check
from ..core.jsonpath import JSONPathStr
from ..core.sentinel import MISSING
from ..core.trace import Trace, TraceType
from ..core.typevars import InputType, OutputType
from .base import BaseLLMCheck, documents, joined_text, trace_with_current_turn
from .prompt_files import bundled_prompt


@Check.register("groundedness")
class Groundedness(BaseLLMCheck[InputType, OutputType, TraceType]):
    """Passes when every claim of the answer is supported by the context documents."""

    answer: str | MISSING = Field(
        default=MISSING,
        description="The answer to judge, given literally; when omitted it is read at target_key.",
    )
    target_key: JSONPathStr = Field(
        # checks-reference names this selector answer_key: accepted too.
        validation_alias=AliasChoices("target_key", "answer_key"),
        default="trace.last.outputs",
        description="JSONPath to the answer in the trace (used when answer is not given).",
    )
    context: str | list[str] | MISSING = Field(
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

    async def get_inputs(self, trace: Any) -> dict[str, Any]:
        answer = self.value_of(trace, "answer", self.answer, self.target_key)
        context = self.value_of(trace, "context", self.context, self.context_key)
        return {
            "answer": joined_text(answer),
            "context": joined_text(context),
            "documents": documents(context),  # what the prompt lists, one by one
            "trace": trace,
        }

    def get_som_trace(self, trace: Any, inputs: dict[str, Any]) -> Trace[Any, Any]:
        return trace_with_current_turn(trace, inputs=inputs["context"], outputs=inputs["answer"])
