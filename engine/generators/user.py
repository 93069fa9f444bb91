"""UserSimulator: a simulated user with a persona, driven by an LLM, for multi-turn scenarios.

    Scenario("refund").interact(
        inputs=UserSimulator(persona="frustrated_customer", context="wants a refund"),
        outputs=my_agent,
    )

plays up to `max_steps` turns: each user message is written by the model from the
persona and the conversation so far, and the agent answers it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ..core.input_generator import InputGenerator
from ..core.trace import TraceType
from .base import BaseLLMGenerator
from .prompts import generator_prompt

# Persona names the prompt knows (any other text is used as the description itself).
PERSONAS = (
    "helpful_user",
    "confused_user",
    "novice_user",
    "frustrated_customer",
    "impatient_user",
    "verbose_user",
    "non_native_speaker",
    "detail_oriented_user",
)


@InputGenerator.register("user_simulator")
class UserSimulator(BaseLLMGenerator[TraceType]):
    """A simulated user: a predefined persona name or your own description, with context."""

    persona: str = Field(
        min_length=1,
        description=(
            "Who the user is and what they want: one of " + ", ".join(PERSONAS) + ", or a "
            "description of your own."
        ),
    )
    context: str | None = Field(
        default=None, description="What this user is after in this scenario (their goal)."
    )

    def get_prompt(self) -> str:
        return generator_prompt("user_simulator")

    async def get_inputs(self, trace: Any) -> dict[str, Any]:
        return {"history": trace, "persona": self.persona, "context": self.context}
