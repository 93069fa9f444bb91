"""contradiction: does the answer contradict a reference context?"""

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


@Check.register("contradiction")
class Contradiction(BaseLLMCheck[InputType, OutputType, TraceType]):
    """Passes unless the answer states something the context rules out."""

    answer: str | MISSING = Field(
        default=MISSING,
        description="The answer to judge, given literally; when omitted it is read at target_key.",
    )
    target_key: JSONPathStr = Field(
        validation_alias=AliasChoices("target_key", "answer_key"),
        default="trace.last.outputs",
        description="JSONPath to the answer under test (used when answer is not given).",
    )
    context: str | list[str] | MISSING = Field(
        default=MISSING,
        description=(
            "Reference context, one text or a list of texts, given literally; when omitted "
            "it is read at context_key."
        ),
    )
    context_key: JSONPathStr = Field(
        default="trace.last.metadata.context",
        description="JSONPath to the reference context in the trace (used when context is not given).",
    )

    def get_prompt(self) -> str:
        return bundled_prompt("contradiction")

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
