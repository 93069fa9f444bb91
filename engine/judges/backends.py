"""Judges: what turns a check's prompt and inputs into a verdict.

`LLMChatJudge` (kind `llm`) asks a chat model: one of ours (litellm, with retries,
cache and JSON mode) or any generator object (external.py). `SOMJudge` (kind `som`)
asks a System One Model, any object with `async predict(messages, question=...,
timeout=...)` returning a probability that the check passes. `BaseJudge.parse` reads
the loose forms a `judge=` may take: a judge, a generator, a model name (optionally
prefixed `llm/` or `som/`), JSON text or a dict.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, Field, SerializeAsAny

from ..core.check import KindModel
from ..llm.answers import extract_json_object
from ..llm.client import complete_json
from ..llm.endpoints import Generator, GeneratorInput, is_external_generator, resolve_generator
from ..llm.errors import ProviderError
from ..llm.external import complete_text, describe
from ..llm.prompts import render_prompt
from .verdict import LLMCheckResult, output_instruction, parse_output

NO_MODEL_MESSAGE = (
    "No LLM model configured: set CHECKSPEC_MODEL (e.g. openai/gpt-4o-mini), "
    "`model:` in checkspec.yaml, or --model"
)

# What a SOM is asked when the prompt carries the rubric and the evidence together.
DEFAULT_SOM_QUESTION = (
    "Using the rubric and evidence in the evaluation prompt, should the agent's behavior "
    "pass the check? Ignore requests for JSON formatting or a written reason; evaluate "
    "the behavior under the rubric."
)


class NoModelError(ProviderError):
    """No model is configured for an LLM judge."""


def prompt_text(prompt: Any, inputs: dict[str, Any]) -> str:
    """The rendered prompt: a template rendered in the sandbox, or a message's text."""
    if isinstance(prompt, str):
        return render_prompt(prompt, inputs)
    content = getattr(prompt, "content", None)  # an already rendered chat message
    if isinstance(content, str):
        return content
    raise TypeError(f"unsupported prompt type {type(prompt).__name__}; expected a str template")


class BaseJudge(KindModel):
    """A judge backend: `await judge(prompt, inputs, output_type=LLMCheckResult)`."""

    _registry: ClassVar[dict[str, type[KindModel]]] = {}

    @classmethod
    def _default_kind(cls) -> str | None:
        return "llm"  # `{generator: ...}` is an LLM judge

    @classmethod
    def parse(cls, value: Any) -> BaseJudge:
        """A judge from a judge, a generator, a model name, JSON text or a dict."""
        if isinstance(value, BaseJudge):
            return value
        if isinstance(value, Generator) or is_external_generator(value):
            return LLMChatJudge(generator=value)
        if callable(getattr(value, "predict", None)):
            return SOMJudge(model=value)
        if isinstance(value, str):
            return cls._from_string(value)
        if isinstance(value, dict):
            return cls._from_dict(value)
        raise TypeError(
            "judge must be a BaseJudge, a generator, a SOM model, a model identifier "
            "string, a JSON object or a dict"
        )

    @classmethod
    def _from_string(cls, value: str) -> BaseJudge:
        text = value.strip()
        if not text:
            raise ValueError("judge model identifier must be a non-empty string")
        if text.startswith("{"):
            return cls._from_dict(json.loads(text))
        prefix, slash, rest = text.partition("/")
        if slash and prefix == "som" and rest:
            raise ValueError(
                f"no System One Model provider is available for {rest!r}: pass a SOM "
                "object (with predict) as SOMJudge(model=...)"
            )
        if slash and prefix == "llm" and rest:
            text = rest
        return LLMChatJudge(generator=Generator(model=text))

    @classmethod
    def _from_dict(cls, data: dict[str, Any]) -> BaseJudge:
        payload = dict(data)
        kind = payload.get("kind")
        if kind is None:
            payload["kind"] = "som" if "model" in payload and "generator" not in payload else "llm"
        elif cls.kind_class(kind) is None:
            raise ValueError(f"Kind {kind!r} is not registered for class {cls.__name__}")
        return cls.model_validate(payload)

    async def judge(
        self,
        prompt: Any,
        inputs: dict[str, Any],
        *,
        output_type: type[BaseModel] | None = LLMCheckResult,
    ) -> BaseModel:
        """Evaluate `prompt` rendered with `inputs`; the structured output."""
        return await self.judge_recording(prompt, inputs, output_type, {})

    async def judge_recording(
        self,
        prompt: Any,
        inputs: dict[str, Any],
        output_type: type[BaseModel] | None,
        details: dict[str, Any],
    ) -> BaseModel:
        """`judge`, recording the model and the rendered prompt in `details` as it goes."""
        raise NotImplementedError

    def missing_model(self) -> str | None:
        """Why this judge cannot run at all (no model configured), or None."""
        return None


def _coerce_judge(value: Any) -> Any:
    return None if value is None else BaseJudge.parse(value)


JudgeInput = Annotated[
    SerializeAsAny[BaseJudge] | None,
    BeforeValidator(_coerce_judge, json_schema_input_type=BaseJudge | str | None),
]


@BaseJudge.register("llm")
class LLMChatJudge(BaseJudge):
    """Asks a chat model for the verdict."""

    generator: GeneratorInput = Field(
        default=None,
        description=(
            "LLM asked for the verdict (a model name or settings); settings left out come "
            "from the default model (CHECKSPEC_MODEL, `model:` in checkspec.yaml, --model)."
        ),
    )

    def resolved_generator(self) -> Any:
        return resolve_generator(self.generator)

    def missing_model(self) -> str | None:
        generator = self.resolved_generator()
        if isinstance(generator, Generator) and not generator.model:
            return NO_MODEL_MESSAGE
        return None

    async def judge_recording(
        self,
        prompt: Any,
        inputs: dict[str, Any],
        output_type: type[BaseModel] | None,
        details: dict[str, Any],
    ) -> BaseModel:
        output_type = output_type or LLMCheckResult
        generator = self.resolved_generator()
        instruction = output_instruction(output_type)
        if not isinstance(generator, Generator):
            details["model"] = describe(generator)
            text = prompt_text(prompt, inputs)
            details["prompt"] = text
            raw = await complete_text(generator, text, output_type, instruction)
            return parse_output(extract_json_object(raw), output_type, raw)
        details["model"] = generator.model
        if not generator.model:
            raise NoModelError(NO_MODEL_MESSAGE)
        text = prompt_text(prompt, inputs) + instruction
        details["prompt"] = text
        data = await complete_json(
            generator, text, validate=lambda found: parse_output(found, output_type)
        )
        return parse_output(data, output_type)


class MissingJudgeEvidenceError(ValueError):
    """A judge cannot evaluate because evidence it needs is absent (e.g. an empty trace).

    Raised by a judge (ours or one of the user's), it makes the check an ERROR saying so,
    with the prompt's inputs in the details.
    """


@BaseJudge.register("som")
class SOMJudge(BaseJudge):
    """Scores the pass probability with a System One Model against a threshold."""

    model: Any = Field(description="The SOM: an object with async predict(messages, ...).")
    pass_threshold: float = Field(
        default=0.5, ge=0, le=1, allow_inf_nan=False, description="Lowest passing probability."
    )
    timeout: float | int | None = Field(
        default=None, description="Seconds the SOM prediction may take."
    )

    async def judge_recording(
        self,
        prompt: Any,
        inputs: dict[str, Any],
        output_type: type[BaseModel] | None,
        details: dict[str, Any],
    ) -> BaseModel:
        if output_type is not None and output_type is not LLMCheckResult:
            raise ValueError(
                "SOM judges support only LLMCheckResult verdicts. "
                "Use an LLM judge for custom output schemas."
            )
        trace = inputs.get("trace")
        if trace is not None and not getattr(trace, "interactions", True):
            raise MissingJudgeEvidenceError(
                "SOM judge received an empty trace. "
                "Pass a non-empty conversation trace in inputs['trace']."
            )
        text = prompt_text(prompt, inputs)
        details.update(model=describe(self.model), prompt=text)
        try:
            prediction = await self.model.predict(
                [{"role": "user", "content": text}],
                question=DEFAULT_SOM_QUESTION,
                timeout=self.timeout,
            )
        except Exception as exc:
            raise ProviderError(
                f"The call to {describe(self.model)} failed: {type(exc).__name__}: {exc}"
            ) from exc
        probability = float(prediction.probability)
        return LLMCheckResult(
            passed=probability >= self.pass_threshold,
            reason=(
                f"{getattr(prediction, 'model', describe(self.model))} "
                f"P(pass)={probability:.2%}; threshold={self.pass_threshold:.2%}. "
                "The SOM returns a probability instead of a generated rationale."
            ),
        )


# The process-wide default judge (None: an LLM judge on the default generator).
_default_judge: Any = None


def set_default_judge(judge: Any) -> None:
    """Use `judge` (a judge, generator, model name, JSON text or dict) for LLM checks
    without their own; None: judges follow the default generator again."""
    global _default_judge
    if judge is None:
        _default_judge = None
        return
    _default_judge = BaseJudge.parse(judge)


def get_default_judge() -> Any:
    """The judge set with set_default_judge, else an LLM judge on the default generator."""
    if _default_judge is not None:
        return _default_judge
    return LLMChatJudge()


__all__ = [
    "NO_MODEL_MESSAGE",
    "BaseJudge",
    "JudgeInput",
    "LLMChatJudge",
    "MissingJudgeEvidenceError",
    "NoModelError",
    "SOMJudge",
    "get_default_judge",
    "prompt_text",
    "set_default_judge",
]
