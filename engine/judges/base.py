"""BaseLLMCheck: render a prompt, ask the judge, turn its verdict into a result."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ..core.check import NO_MODEL_CALLS, Check, ModelCalls
from ..core.jsonpath import NoMatch, provided_or_resolve
from ..core.result import CheckResult
from ..core.sentinel import MISSING
from ..core.trace import Interaction, Trace, TraceType
from ..core.typevars import InputType, OutputType
from ..llm.client import complete_json
from ..llm.endpoints import Generator
from ..llm.errors import ProviderError
from ..llm.external import describe
from ..llm.prompts import PromptError, as_text, render_prompt, template_syntax_error
from ..llm.usage import metered
from .backends import (
    NO_MODEL_MESSAGE,
    BaseJudge,
    LLMChatJudge,
    MissingJudgeEvidenceError,
    SOMJudge,
)
from .mixins import WithJudgeMixin
from .verdict import VERDICT_INSTRUCTION, LLMCheckResult, VerdictError, parse_verdict


class CheckInputError(Exception):
    """A value the prompt needs could not be read from the trace (the check ERRORs)."""


class BaseLLMCheck(Check[InputType, OutputType, TraceType], WithJudgeMixin):
    """A check judged by an LLM (or another judge). Subclasses give the prompt template.

    `get_prompt()` returns the Jinja2 template (rendered in a sandbox);
    `async get_inputs(trace)` its variables (raise CheckInputError when one cannot be
    read: the check ERRORs saying so). A custom `output_type` needs `_handle_output`.
    """

    @property
    def output_type(self) -> type[BaseModel] | None:
        return LLMCheckResult

    def get_prompt(self) -> Any:
        """The Jinja2 template text of the judge prompt."""
        raise NotImplementedError(f"{type(self).__name__}.get_prompt is not implemented")

    async def get_inputs(self, trace: Any) -> dict[str, Any]:
        """Variables of the template; raise CheckInputError when one cannot be read."""
        return {"trace": trace}

    def get_som_trace(self, trace: Any, inputs: dict[str, Any]) -> Trace[Any, Any]:
        """The conversation evidence a SOM judge is shown."""
        candidate = inputs.get("trace", trace)
        return candidate if isinstance(candidate, Trace) else trace

    def model_calls(self) -> ModelCalls:
        """One judge request a run (a check judging in several calls says how many);
        none when the judge is not ours (a SOM or user-defined judge) or has no model."""
        judge = self._judge
        if not isinstance(judge, LLMChatJudge) or judge.missing_model() is not None:
            return NO_MODEL_CALLS
        return ModelCalls(_model_detail(judge).get("model"), 1)

    async def run(self, trace: Any) -> CheckResult:
        judge = self._judge
        if (missing := judge.missing_model()) is not None:
            return CheckResult.error(missing)
        try:
            inputs = await self.get_inputs(trace)
            prompt = self.get_prompt()
        except (CheckInputError, PromptError) as exc:
            return CheckResult.error(str(exc), _model_detail(judge))
        if isinstance(judge, SOMJudge):
            inputs["trace"] = self.get_som_trace(trace, inputs)
        return await metered(self._verdict(judge, prompt, inputs, trace))

    async def _verdict(
        self, judge: BaseJudge, prompt: Any, inputs: dict[str, Any], trace: Any
    ) -> CheckResult:
        """Ask the judge; its failures are ERROR results saying why, never a pass."""
        details: dict[str, Any] = {}
        try:
            if type(judge).judge is BaseJudge.judge:  # ours: records model and prompt
                output = await judge.judge_recording(prompt, inputs, self.output_type, details)
            else:  # a user-defined judge
                output = await judge.judge(prompt, inputs, output_type=self.output_type)
        except VerdictError as exc:
            return CheckResult.error(str(exc), {**details, "answer": exc.raw})
        except MissingJudgeEvidenceError as exc:
            return CheckResult.error(str(exc), {**details, "inputs": inputs})
        except (ProviderError, PromptError) as exc:
            return CheckResult.error(str(exc), details)
        except Exception as exc:  # a bug must not stop the run: report it on this check
            return CheckResult.error(f"The judge call failed: {type(exc).__name__}: {exc}", details)
        result = await self._handle_output(output, inputs, trace)
        if details and type(self)._handle_output is BaseLLMCheck._handle_output:  # noqa: SLF001
            result.details.update(details)
        return result

    async def _handle_output(
        self, output_value: BaseModel, template_inputs: dict[str, Any], trace: Any
    ) -> CheckResult:
        """The result of a verdict; override for a custom output_type."""
        if isinstance(output_value, LLMCheckResult):
            details = {"reason": output_value.reason, "inputs": template_inputs}
            if output_value.passed:
                return CheckResult.success(output_value.reason, details)
            return CheckResult.failure(output_value.reason, details)
        raise NotImplementedError(
            f"Custom output type {type(output_value)} requires overriding _handle_output"
        )

    @staticmethod
    def value_of(trace: Trace, field: str, value: Any, key: Any) -> Any:
        """The inline value if given, else what `key` selects; CheckInputError on no match.

        `field` names the value in messages ("No value found for answer key '...'").
        """
        found = provided_or_resolve(trace, key=key, value=value)
        if isinstance(found, NoMatch):
            raise CheckInputError(f"No value found for {field} key '{key}'.")
        if found is MISSING:
            raise CheckInputError(f"No value given for {field}.")
        return found


def _model_detail(judge: BaseJudge) -> dict[str, Any]:
    if isinstance(judge, LLMChatJudge):
        generator = judge.resolved_generator()
        return {
            "model": generator.model if isinstance(generator, Generator) else describe(generator)
        }
    return {}


def joined_text(value: Any) -> str:
    """A resolved value as prompt text: a list as one item per line, not a Python repr."""
    if isinstance(value, list | tuple):
        return "\n".join(as_text(item) for item in value)
    return as_text(value)


def documents(value: Any) -> list[str]:
    """Context given as one text or a list of texts, as a list of texts."""
    items = value if isinstance(value, list | tuple) else [value]
    texts = [as_text(item) for item in items if item is not None]
    if not any(text.strip() for text in texts):
        raise CheckInputError("The context is empty: there is nothing to judge against.")
    return texts


def trace_with_current_turn(trace: Trace[Any, Any], *, inputs: Any, outputs: Any) -> Trace:
    """The trace itself, or when empty a one-turn trace of the given values."""
    if trace.interactions:
        return trace
    return Trace(interactions=[Interaction(inputs=inputs, outputs=outputs)])


async def ask_judge(generator: Generator, prompt: str) -> LLMCheckResult:
    """The model's verdict on a fully rendered prompt (ProviderError / VerdictError)."""
    data = await complete_json(generator, prompt, validate=parse_verdict)
    return parse_verdict(data)


__all__ = [
    "NO_MODEL_MESSAGE",
    "VERDICT_INSTRUCTION",
    "BaseLLMCheck",
    "CheckInputError",
    "LLMCheckResult",
    "VerdictError",
    "as_text",
    "ask_judge",
    "documents",
    "joined_text",
    "render_prompt",
    "template_syntax_error",
]
