"""answer_relevance: does the answer address the question of the current turn?"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import AliasChoices, Field

from ..core.check import DATASET_TEXT_KEY, Check
from ..core.jsonpath import JSONPathStr
from ..core.sentinel import MISSING
from ..core.trace import Trace
from .base import BaseLLMCheck
from .templates import bundled_prompt


@Check.register("answer_relevance")
class AnswerRelevance(BaseLLMCheck):
    """Passes when the judge finds the answer relevant to the question (not necessarily right)."""

    # Dataset files hold chat-format inputs and outputs.
    dataset_overrides: ClassVar[dict[str, Any]] = {
        "answer_key": DATASET_TEXT_KEY,
        "question_key": "trace.last.inputs.messages[-1].content",
    }

    question: str | MISSING = Field(  # type: ignore[valid-type]
        default=MISSING,
        description="The question, given literally; takes priority over question_key.",
    )
    question_key: JSONPathStr = Field(
        default="trace.last.inputs",
        description="JSONPath to the question in the trace (used when question is not given).",
    )
    answer: str | MISSING = Field(  # type: ignore[valid-type]
        default=MISSING,
        description="The answer to judge, given literally; takes priority over answer_key.",
    )
    answer_key: JSONPathStr = Field(
        # The hub names the selector of the value under test target_key: accept both.
        validation_alias=AliasChoices("answer_key", "target_key"),
        default="trace.last.outputs",
        description="JSONPath to the answer in the trace (used when answer is not given).",
    )
    context: str | None = Field(
        default=None,
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

    def get_inputs(self, trace: Trace) -> dict[str, Any]:
        return {
            "question": self.value_of(trace, "question_key", self.question, self.question_key),
            "answer": self.value_of(trace, "answer_key", self.answer, self.answer_key),
            "context": self.context,
            "history": list(trace.interactions[:-1]) if self.include_history else [],
        }
