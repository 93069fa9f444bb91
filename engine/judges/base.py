"""BaseLLMCheck: render a prompt, ask the judge model, turn its verdict into a result."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from pydantic import Field, FieldSerializationInfo, field_serializer, field_validator

from ..core.check import Check
from ..core.jsonpath import NoMatch, provided_or_resolve
from ..core.result import CheckResult
from ..core.sentinel import MISSING
from ..core.trace import Trace
from .config import Generator, get_default_generator
from .llm import ProviderError, complete_json
from .templates import PromptError, as_text, render_prompt, template_syntax_error
from .verdict import VERDICT_INSTRUCTION, LLMCheckResult, VerdictError, parse_verdict

NO_MODEL_MESSAGE = (
    "No LLM model configured: set CHECKSPEC_MODEL (e.g. openai/gpt-4o-mini), "
    "`model:` in checkspec.yaml, or --model"
)


class CheckInputError(Exception):
    """A value the prompt needs could not be read from the trace (the check ERRORs)."""


class BaseLLMCheck(Check):
    """A check judged by an LLM. Subclasses give the prompt template and its variables."""

    generator: Generator | None = Field(
        default=None,
        description=(
            "LLM used as judge (a model name or settings); settings left out come from the "
            "default model (CHECKSPEC_MODEL, `model:` in checkspec.yaml, --model)."
        ),
    )

    # A bare model name is accepted (`generator: openai/gpt-4o-mini`) and said so in schemas.
    @field_validator("generator", mode="before", json_schema_input_type=Generator | str | None)
    @classmethod
    def _model_name(cls, value: Any) -> Any:
        return {"model": value} if isinstance(value, str) else value

    @field_serializer("generator")
    def _only_given_settings(
        self, generator: Generator | None, info: FieldSerializationInfo
    ) -> dict[str, Any] | None:
        # Dump what was written, not the defaults: reloaded, it still defers to the default.
        return (
            None if generator is None else generator.model_dump(mode=info.mode, exclude_unset=True)
        )

    @abstractmethod
    def get_prompt(self) -> str:
        """The Jinja2 template text of the judge prompt."""

    def get_inputs(self, trace: Trace) -> dict[str, Any]:
        """Variables of the template; raise CheckInputError when one cannot be read."""
        return {"trace": trace}

    def resolved_generator(self) -> Generator:
        default = get_default_generator()
        return default if self.generator is None else self.generator.merged_over(default)

    async def run(self, trace: Trace) -> CheckResult:
        prepared = self.prepare(trace)
        if isinstance(prepared, CheckResult):
            return prepared
        generator, variables = prepared
        try:
            template = self.get_prompt()
        except PromptError as exc:
            return CheckResult.error(str(exc), {"model": generator.model})
        return await self.judge(generator, template, variables)

    def prepare(self, trace: Trace) -> tuple[Generator, dict[str, Any]] | CheckResult:
        """The generator and template variables, or the ERROR result saying what is missing."""
        generator = self.resolved_generator()
        if not generator.model:
            return CheckResult.error(NO_MODEL_MESSAGE)
        try:
            return generator, self.get_inputs(trace)
        except CheckInputError as exc:
            return CheckResult.error(str(exc), {"model": generator.model})

    async def judge(
        self, generator: Generator, template: str, variables: dict[str, Any]
    ) -> CheckResult:
        """Render `template` with `variables`, ask the model, map its verdict to a result."""
        details: dict[str, Any] = {"model": generator.model}
        try:
            prompt = render_prompt(template, variables) + VERDICT_INSTRUCTION
        except PromptError as exc:
            return CheckResult.error(str(exc), details)
        details["prompt"] = prompt
        try:
            verdict = await ask_judge(generator, prompt)
        except VerdictError as exc:
            return CheckResult.error(str(exc), {**details, "answer": exc.raw})
        except ProviderError as exc:
            return CheckResult.error(str(exc), details)
        except Exception as exc:  # a bug must not stop the run: report it on this check
            return CheckResult.error(f"The judge call failed: {type(exc).__name__}: {exc}", details)
        details["reason"] = verdict.reason
        if verdict.passed:
            return CheckResult.success(verdict.reason or "The judge passed the check.", details)
        return CheckResult.failure(
            verdict.reason or "The judge failed the check (no reason given).", details
        )

    @staticmethod
    def value_of(trace: Trace, field: str, value: Any, key: Any) -> Any:
        """The inline value if given, else what `key` selects; CheckInputError on no match."""
        found = provided_or_resolve(trace, key=key, value=value)
        if isinstance(found, NoMatch):
            raise CheckInputError(f"No value found for {field} '{key}'.")
        if found is MISSING:
            raise CheckInputError(f"No value given for {field}.")
        return found


def documents(value: Any) -> list[str]:
    """Context given as one text or a list of texts, as a list of texts."""
    items = value if isinstance(value, list | tuple) else [value]
    texts = [as_text(item) for item in items if item is not None]
    if not any(text.strip() for text in texts):
        raise CheckInputError("The context is empty: there is nothing to judge against.")
    return texts


async def ask_judge(generator: Generator, prompt: str) -> LLMCheckResult:
    """The model's verdict on a fully rendered prompt (ProviderError / VerdictError)."""
    data = await complete_json(generator, prompt, validate=parse_verdict)
    return parse_verdict(data)


__all__ = [
    "NO_MODEL_MESSAGE",
    "BaseLLMCheck",
    "CheckInputError",
    "LLMCheckResult",
    "VerdictError",
    "as_text",
    "ask_judge",
    "documents",
    "render_prompt",
    "template_syntax_error",
]
