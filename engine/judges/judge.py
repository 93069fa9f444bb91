"""llm_judge: a custom Jinja2 prompt, inline or from a file."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, model_validator

from ..core.check import Check, FieldIssue
from ..core.trace import TraceType
from ..core.typevars import InputType, OutputType
from ..llm.prompts import PromptError, template_syntax_location
from .base import BaseLLMCheck


@Check.register("llm_judge")
class LLMJudge(BaseLLMCheck[InputType, OutputType, TraceType]):
    """Asks the judge model a custom question about the trace."""

    prompt: str | None = Field(
        default=None,
        description=(
            "Jinja2 template of the judge prompt. `trace` is available: trace.last.inputs, "
            "trace.last.outputs, trace.last.metadata, trace.interactions. Say what passes; "
            "the answer format is added for you. Give this or prompt_path."
        ),
    )
    prompt_path: str | None = Field(
        default=None,
        description=(
            "Path of a Jinja2 prompt template file (absolute, or relative to the working "
            "directory), read when the check runs. Give this or prompt."
        ),
    )

    @model_validator(mode="after")
    def validate_prompt_or_path(self) -> LLMJudge:
        """Exactly one of prompt and prompt_path (the reference library's messages)."""
        if self.prompt is None and self.prompt_path is None:
            raise ValueError("Either 'prompt' or 'prompt_path' must be provided")
        if self.prompt is not None and self.prompt_path is not None:
            raise ValueError("Cannot provide both 'prompt' and 'prompt_path' - choose one")
        return self

    def lint(self) -> list[FieldIssue]:
        if not isinstance(self.prompt, str):
            return []
        error = template_syntax_location(self.prompt)
        if error is None:
            return []
        message, line = error
        return [FieldIssue("prompt", "template-syntax", f"Jinja2: {message}", line - 1, 0)]

    def get_prompt(self) -> str:
        if self.prompt is not None:
            return self.prompt
        path = Path(str(self.prompt_path))
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise PromptError(f"Cannot read prompt_path '{path}': {reason}") from None
