"""llm_judge: a custom Jinja2 prompt, inline or from a file."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, model_validator

from ..checks.text_matching import exactly_one
from ..core.check import Check, FieldIssue
from ..core.sentinel import MISSING
from .base import BaseLLMCheck
from .templates import PromptError, template_syntax_location


@Check.register("llm_judge")
class LLMJudge(BaseLLMCheck):
    """Asks the judge model a custom question about the trace."""

    prompt: str | MISSING = Field(  # type: ignore[valid-type]
        default=MISSING,
        description=(
            "Jinja2 template of the judge prompt. `trace` is available: trace.last.inputs, "
            "trace.last.outputs, trace.last.metadata, trace.interactions. Say what passes; "
            "the answer format is added for you. Give this or prompt_path."
        ),
    )
    prompt_path: str | MISSING = Field(  # type: ignore[valid-type]
        default=MISSING,
        description=(
            "Path of a Jinja2 prompt template file (absolute, or relative to the working "
            "directory), read when the check runs. Give this or prompt."
        ),
    )

    @model_validator(mode="after")
    def _one_prompt(self) -> LLMJudge:
        exactly_one(self, "prompt", "prompt_path")
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
        if self.prompt is not MISSING:
            return self.prompt
        path = Path(self.prompt_path)
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise PromptError(f"Cannot read prompt_path '{path}': {reason}") from None
