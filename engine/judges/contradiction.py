"""contradiction: does the response contradict a reference context?"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from ..checks.text_matching import exactly_one
from ..core.check import Check
from ..core.jsonpath import JSONPathStr
from ..core.sentinel import MISSING
from ..core.trace import Trace
from .base import BaseLLMCheck, documents
from .templates import bundled_prompt


@Check.register("contradiction")
class Contradiction(BaseLLMCheck):
    """Passes unless the response states something the context rules out."""

    context: str | list[str] | MISSING = Field(  # type: ignore[valid-type]
        default=MISSING,
        description="Reference context, one text or a list of texts. Give this or context_key.",
    )
    context_key: JSONPathStr | MISSING = Field(  # type: ignore[valid-type]
        default=MISSING,
        description="JSONPath to the reference context in the trace. Give this or context.",
    )
    target_key: JSONPathStr = Field(
        default="trace.last.outputs", description="JSONPath to the response under test."
    )

    @model_validator(mode="after")
    def _one_context(self) -> Contradiction:
        exactly_one(self, "context", "context_key")
        return self

    def get_prompt(self) -> str:
        return bundled_prompt("contradiction")

    def get_inputs(self, trace: Trace) -> dict[str, Any]:
        context = self.value_of(trace, "context_key", self.context, self.context_key)
        response = self.value_of(trace, "target_key", MISSING, self.target_key)
        return {"context": documents(context), "response": response}
