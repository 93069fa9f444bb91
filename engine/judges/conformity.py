"""conformity: does the whole conversation follow one natural-language rule?"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ..core.check import Check
from ..core.trace import TraceType
from ..core.typevars import InputType, OutputType
from .base import BaseLLMCheck
from .prompt_files import bundled_prompt


@Check.register("conformity")
class Conformity(BaseLLMCheck[InputType, OutputType, TraceType]):
    """Passes when the judge finds that the full trace follows the rule."""

    rule: str = Field(
        min_length=1,
        description=(
            "The rule the conversation must follow, in plain language (literal text, not a "
            "template), e.g. 'The agent never discloses internal pricing rules.'"
        ),
    )

    def get_prompt(self) -> str:
        return bundled_prompt("conformity")

    async def get_inputs(self, trace: Any) -> dict[str, Any]:
        # The rule is a variable, so braces in it are shown, never evaluated.
        return {"trace": trace, "rule": self.rule}
