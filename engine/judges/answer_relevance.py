"""answer_relevance: does the answer address the question of the current turn?"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import AliasChoices, Field

from ..core.check import Check
from ..core.jsonpath import JSONPathStr
from ..core.sentinel import MISSING
from ..core.trace import Interaction, Trace, TraceType
from ..core.typevars import InputType, OutputType
from .base import BaseLLMCheck, trace_with_current_turn
from .prompt_files import bundled_prompt


@Check.register("answer_relevance")
class AnswerRelevance(BaseLLMCheck[InputType, OutputType, TraceType]):
    """Passes when the judge finds the answer relevant to the question (not necessarily right)."""

    # Dataset files hold chat-format inputs: the question is the last user message.
    dataset_overrides: ClassVar[dict[str, Any]] = {
        "question_key": "trace.last.inputs.messages[-1].content",
    }

    question: str | MISSING = Field(
        default=MISSING,
        description="The question, given literally; takes priority over question_key.",
    )
    question_key: JSONPathStr = Field(
        default="trace.last.inputs",
        description="JSONPath to the question in the trace (used when question is not given).",
    )
    answer: str | MISSING = Field(
        default=MISSING,
        description="The answer to judge, given literally; takes priority over target_key.",
    )
    target_key: JSONPathStr = Field(
        # checks-reference names this selector answer_key: accepted too.
        validation_alias=AliasChoices("target_key", "answer_key"),
        default="trace.last.outputs",
        description="JSONPath to the answer in the trace (used when answer is not given).",
    )
    context: str | MISSING = Field(
        default=MISSING,
        description=(
            "What the assistant is for (its domain or role), to help judge relevance; "
            "literal text, never read from the trace."
        ),
    )
    include_history: bool = Field(
        default=True,
        description=(
            "Show the earlier turns of the conversation to the judge so follow-up questions "
            "make sense; only the last turn is judged."
        ),
    )

    def get_prompt(self) -> str:
        return bundled_prompt("answer_relevance")

    async def get_inputs(self, trace: Any) -> dict[str, Any]:
        question = self.value_of(trace, "question", self.question, self.question_key)
        answer = self.value_of(trace, "answer", self.answer, self.target_key)
        shown = (
            trace
            if self.include_history
            else Trace(interactions=[Interaction(inputs=question, outputs=answer)])
        )
        inputs = {
            "question": question,
            "answer": answer,
            "context": self.context if self.context is not MISSING else "",
            "trace": shown,
        }
        if self.include_history:  # left out, not empty: the prompt has no history section
            inputs["history"] = trace
        return inputs

    def get_som_trace(self, trace: Any, inputs: dict[str, Any]) -> Trace[Any, Any]:
        return trace_with_current_turn(
            inputs["trace"], inputs=inputs["question"], outputs=inputs["answer"]
        )
