"""LLM-driven input generators: each turn, a model writes the next user message.

`BaseLLMGenerator` asks the model, turn after turn, for `{goal_reached, message,
schema_issue}`; it stops when the goal is reached, there is nothing to say, or
`max_steps` turns were played. Prompts render in the prompt sandbox (llm/prompts.py); the model is
called through our litellm layer (retries, cache) or, for another library's generator
object, through its own `complete` (llm/external.py).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

from pydantic import BaseModel, Field, ValidationError, model_validator

from ..core.exceptions import InputGenerationException
from ..core.input_generator import InputGenerator
from ..core.trace import TraceType
from ..llm.answers import VerdictError, extract_json_object
from ..llm.client import complete_json
from ..llm.endpoints import Generator, resolve_generator
from ..llm.external import complete_text
from ..llm.model_fields import WithGeneratorMixin
from ..llm.prompts import PromptError, as_text, render_prompt

NO_MODEL_MESSAGE = (
    "No LLM model configured for the input generator: set CHECKSPEC_MODEL (e.g. "
    "openai/gpt-4o-mini), `model:` in checkspec.yaml, --model, or its generator"
)

T = TypeVar("T")


class LLMGeneratorOutput(BaseModel, Generic[T]):
    """One turn of a generator: the next message, or that the goal is reached."""

    goal_reached: bool = Field(
        description="Whether the goal has been reached and no more messages are needed."
    )
    schema_issue: str | None = Field(
        default=None,
        description=(
            "Why no message of the required shape can be written (e.g. no text field); "
            "set instead of message."
        ),
    )
    message: T | None = Field(
        default=None, description="The message to send; null when goal_reached is true."
    )

    @model_validator(mode="after")
    def _message_or_issue(self) -> LLMGeneratorOutput[T]:
        if self.message is not None and self.schema_issue is not None:
            raise ValueError("'message' and 'schema_issue' cannot both be set")
        return self


def answer_format(output_type: type[BaseModel]) -> str:
    """The instruction appended to a prompt: answer with this JSON shape."""
    schema = json.dumps(output_type.model_json_schema(), ensure_ascii=False)
    return (
        "\n\nAnswer with a single JSON object and nothing else, matching this JSON Schema:\n"
        + schema
    )


async def ask_model(
    generator: Any, prompt: str, output_type: type[BaseModel], *, instructed: bool = False
) -> Any:
    """The model's answer to `prompt` as `output_type` (ProviderError, VerdictError).

    The answer format is appended unless the prompt already carries it (`instructed`).
    """
    instruction = "" if instructed else answer_format(output_type)
    if isinstance(generator, Generator):
        if not generator.model:
            raise InputGenerationException(NO_MODEL_MESSAGE)
        data = await complete_json(generator, prompt + instruction)
    else:
        raw = await complete_text(generator, prompt, output_type, instruction)
        data = extract_json_object(raw)
    try:
        return output_type.model_validate(data)
    except ValidationError as exc:
        raise VerdictError(f"it is not a {output_type.__name__}: {exc}", json.dumps(data)) from None


class BaseLLMGenerator(InputGenerator[TraceType], WithGeneratorMixin):
    """Multi-turn inputs written by an LLM; subclasses give the prompt (and its variables)."""

    max_steps: int = Field(default=3, ge=0, description="Most turns to play.")
    max_retries: int = Field(
        default=2,
        ge=0,
        description=(
            "Further attempts per turn when the model cannot write a message of the required "
            "shape (schema_issue) or answers something unreadable. Provider errors are "
            "retried by the model layer itself."
        ),
    )

    def get_prompt(self) -> str:
        """The Jinja2 template of the prompt (rendered in the sandbox with get_inputs)."""
        raise NotImplementedError(f"{type(self).__name__}.get_prompt is not implemented")

    async def get_inputs(self, trace: Any) -> dict[str, Any]:
        """Variables of the prompt template; by default the trace."""
        return {"trace": trace}

    def _render(self, prompt: str, inputs: dict[str, Any]) -> str:
        return render_prompt(prompt, inputs)

    async def __call__(
        self, trace: Any, input_type: type[Any] | None = None
    ) -> AsyncGenerator[Any, Any]:
        # A model parametrized at run time (a class for pydantic, not a static type).
        output_type = cast("type[BaseModel]", LLMGeneratorOutput[input_type or str])  # type: ignore[misc]
        prompt = self.get_prompt()
        generator = resolve_generator(self.generator)
        # A template may place the answer format itself: {{ _instr_output }}.
        instructed = "_instr_output" in prompt
        step = 0
        while step < self.max_steps:
            inputs = await self.get_inputs(trace)
            if instructed:
                inputs = {**inputs, "_instr_output": answer_format(output_type).strip()}
            text = self._render(prompt, inputs)
            output = await self._turn(generator, text, output_type, step, instructed)
            if output.goal_reached or not output.message:
                return
            trace = yield output.message
            step += 1

    async def _turn(
        self, generator: Any, text: str, output_type: Any, step: int, instructed: bool
    ) -> Any:
        problem: Exception | None = None
        prompt = text
        for attempt in range(1, self.max_retries + 2):
            try:
                output = await ask_model(generator, prompt, output_type, instructed=instructed)
            except VerdictError as exc:  # unreadable: ask again
                problem = exc
            else:
                if not output.schema_issue:
                    return output
                problem = InputGenerationException(
                    f"schema issue at turn {step}, attempt {attempt}: {output.schema_issue}"
                )
            # Say what was wrong: a better prompt, and not the cached answer again.
            prompt = f"{text}\n\nYour previous answer could not be used ({problem}). Try again."
        raise InputGenerationException(
            f"generation failed at turn {step} after {self.max_retries + 1} attempt(s)"
        ) from problem


@InputGenerator.register("llm_generator")
class LLMGenerator(BaseLLMGenerator[TraceType]):
    """An LLM-written user with your prompt: inline (`prompt`) or from a file (`prompt_path`)."""

    prompt: str | None = Field(
        default=None,
        description=(
            "What the simulated user is and wants, in plain text (a Jinja2 template with "
            "as_template). The conversation so far is added after it."
        ),
    )
    as_template: bool = Field(
        default=False,
        description=(
            "Render prompt as a Jinja2 template (variables: trace). prompt_path is always "
            "a template."
        ),
    )
    prompt_path: str | None = Field(
        default=None,
        description="Path of a Jinja2 template file of the prompt (variables: trace).",
    )

    @model_validator(mode="after")
    def _prompt_or_path(self) -> LLMGenerator[Any]:
        if self.prompt is None and self.prompt_path is None:
            raise ValueError("Either 'prompt' or 'prompt_path' must be provided")
        if self.prompt is not None and self.prompt_path is not None:
            raise ValueError("Cannot provide both 'prompt' and 'prompt_path' - choose one")
        return self

    def get_prompt(self) -> str:
        if self.prompt is not None:
            return self.prompt
        path = Path(str(self.prompt_path))
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PromptError(f"Cannot read prompt_path '{path}': {exc}") from None

    def _render(self, prompt: str, inputs: dict[str, Any]) -> str:
        if self.prompt is not None and not self.as_template:
            # Plain text is never evaluated as a template; the model still needs to know
            # what was said so far to write a follow-up.
            return prompt + _conversation(inputs.get("trace"))
        return render_prompt(prompt, inputs)


def _conversation(trace: Any) -> str:
    interactions = getattr(trace, "interactions", None) or []
    if not interactions:
        return "\n\nThe conversation has not started yet: write the first message."
    turns = "\n".join(
        f'<turn index="{i}">\nUser: {as_text(x.inputs)}\nAgent: {as_text(x.outputs)}\n</turn>'
        for i, x in enumerate(interactions, start=1)
    )
    return f"\n\nThe conversation so far:\n{turns}"


__all__ = ["BaseLLMGenerator", "LLMGenerator", "LLMGeneratorOutput", "ask_model"]
