"""DatasetInputGenerator: one fixed dataset prompt, delivered in the target's input shape.

For a `str` input the prompt is the input. For a structured input (a pydantic model the
target is annotated with), a model is asked once per schema where a user's message goes
(a `{{prompt}}` placeholder in an instance of the schema); the prompt itself is never
shown to the model, only substituted into that instance.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncGenerator, Mapping, Sequence, Set
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field, model_validator

from ..core.input_generator import InputGenerator
from ..core.trace import TraceType
from ..llm.endpoints import resolve_generator
from ..llm.model_fields import WithGeneratorMixin
from ..llm.prompts import render_prompt
from .base import ask_model
from .prompts import generator_prompt

PROMPT_PLACEHOLDER = "{{prompt}}"
T = TypeVar("T")


class MappingTemplate(BaseModel, Generic[T]):
    """The model's answer: an instance of the input schema with the placeholder, or why not."""

    schema_issue: str | None = Field(
        default=None, description="Why no string field can carry a user message."
    )
    message: T | None = Field(
        default=None,
        description=f"An instance of the schema with {PROMPT_PLACEHOLDER} where the message goes.",
    )

    @model_validator(mode="after")
    def _one_of(self) -> MappingTemplate[T]:
        if (self.message is None) == (self.schema_issue is None):
            raise ValueError("Exactly one of 'message' / 'schema_issue' must be set")
        return self


def substitute_prompt(message: Any, prompt: str) -> Any:
    """A copy of `message` with every placeholder replaced by `prompt`; ValueError if none."""
    result, replaced = _replace(message, prompt)
    if not replaced:
        raise ValueError(
            f"Template message contains no '{PROMPT_PLACEHOLDER}' placeholder to inject the prompt into"
        )
    return result


def _replace(value: Any, prompt: str) -> tuple[Any, bool]:
    if isinstance(value, str):
        return (
            (value.replace(PROMPT_PLACEHOLDER, prompt), True)
            if PROMPT_PLACEHOLDER in value
            else (value, False)
        )
    if isinstance(value, BaseModel):
        found = False
        data: dict[str, Any] = {}
        for name in type(value).model_fields:
            data[name], hit = _replace(getattr(value, name), prompt)
            found |= hit
        return type(value).model_validate(data), found
    if isinstance(value, Mapping):
        found = False
        out: dict[Any, Any] = {}
        for key, item in value.items():
            out[key], hit = _replace(item, prompt)
            found |= hit
        return type(value)(**out), found
    if isinstance(value, Sequence | Set) and not isinstance(value, bytes):
        items = [_replace(item, prompt) for item in value]
        rebuild: Any = type(value)  # the same kind of collection (list, tuple, set...)
        return rebuild(item for item, _ in items), any(hit for _, hit in items)
    return value, False


def schema_cache_key(input_type: type, schema: dict[str, Any] | None = None) -> str:
    """The class name and a hash of its JSON Schema: one model call per input shape."""
    schema = input_type.model_json_schema() if schema is None else schema  # type: ignore[attr-defined]
    digest = hashlib.sha256(json.dumps(schema, sort_keys=True, default=str).encode()).hexdigest()
    return f"{input_type.__qualname__}:{digest[:16]}"


_TEMPLATE_CACHE: dict[str, MappingTemplate[Any]] = {}
_TEMPLATE_LOCKS: dict[str, asyncio.Lock] = {}


@InputGenerator.register("dataset_input")
class DatasetInputGenerator(InputGenerator[TraceType], WithGeneratorMixin):
    """A single input: the dataset's prompt, placed into the target's input shape."""

    prompt: str = Field(min_length=1, description="The dataset prompt, used verbatim.")

    async def __call__(
        self, trace: Any, input_type: type[Any] | None = None
    ) -> AsyncGenerator[Any, Any]:
        if input_type is None or input_type is str:
            yield self.prompt
            return
        template = await self._template(input_type)
        yield substitute_prompt(template.message, self.prompt)

    async def _template(self, input_type: type[Any]) -> MappingTemplate[Any]:
        schema = input_type.model_json_schema()
        key = schema_cache_key(input_type, schema)
        if (cached := _TEMPLATE_CACHE.get(key)) is not None:
            return cached
        # Scenarios run concurrently: one model call per schema, not one per scenario.
        async with _TEMPLATE_LOCKS.setdefault(key, asyncio.Lock()):
            if (cached := _TEMPLATE_CACHE.get(key)) is not None:
                return cached
            text = render_prompt(
                generator_prompt("dataset_input_mapping"),
                {"schema": json.dumps(schema, indent=2, default=str)},
            )
            template = await ask_model(
                resolve_generator(self.generator),
                text,
                MappingTemplate[input_type],  # type: ignore[valid-type]
            )
            if template.schema_issue is not None:
                raise ValueError(
                    f"Cannot template prompt into {input_type.__qualname__}: {template.schema_issue}"
                )
            _TEMPLATE_CACHE[key] = template
            return template
