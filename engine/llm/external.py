"""Generators and embedding models that are not ours (e.g. giskard-agents' classes).

Code written for the reference library passes its own generator objects
(`generator=MyGenerator(...)`, subclasses of giskard-agents' `BaseGenerator`) and
embedding models. Any object with the same interface works here, by duck typing, so
neither library needs the other:

- a generator has `async complete(messages, params=None) -> response`, the answer's
  text at `response.choices[0].message.content`;
- an embedding model has `async embed(texts) -> list[vector]`.

These objects are called as they are: no cache or retries of ours (they may keep
state, as test doubles do), and their exceptions propagate as theirs.
"""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import BaseModel

from .errors import ProviderError

# Where dumps of another library's objects (a `kind` among their fields) are rebuilt.
EXTERNAL_LIBRARY = "giskard.agents"


def rebuild_external(data: dict[str, Any], base: str) -> Any:
    """A generator or embedding model of giskard-agents from its dump, if it is installed.

    Its classes register their kinds; our own settings models have no `kind`.
    """
    try:
        library = importlib.import_module(EXTERNAL_LIBRARY)
    except ImportError:
        raise ValueError(
            f"a {data.get('kind')!r} generator needs {EXTERNAL_LIBRARY}, which is not "
            "installed; give a model name or settings (model, api_base, ...) instead"
        ) from None
    return getattr(library, base).model_validate(data)


def describe(value: Any) -> str:
    """A name for the generator in messages and details."""
    model = getattr(value, "model", None)
    return model if isinstance(model, str) else type(value).__name__


def _structured_params(generator: Any, output_type: type[BaseModel] | None) -> Any:
    """Generation params asking for `output_type`, if the generator takes such params.

    giskard-agents generators carry `params` (a pydantic model with `response_format`):
    structured output is requested there rather than in the prompt.
    """
    params = getattr(generator, "params", None)
    if output_type is None or not isinstance(params, BaseModel):
        return None
    if "response_format" not in type(params).model_fields:
        return None
    try:
        return type(params)(response_format=output_type)
    except Exception:
        return None


async def complete_text(
    generator: Any, prompt: str, output_type: type[BaseModel] | None, instruction: str
) -> str | None:
    """The external generator's answer to one user message.

    The answer format goes in structured-output params when the generator takes them,
    else at the end of the prompt.
    """
    params = _structured_params(generator, output_type)
    content = prompt if params is not None else prompt + instruction
    messages = [{"role": "user", "content": content}]
    if params is not None:
        response = await generator.complete(messages, params)
    else:
        response = await generator.complete(messages)
    return _text_of(response)


def _text_of(response: Any) -> str | None:
    if isinstance(response, str):
        return response
    choices = getattr(response, "choices", None)
    message = choices[0].message if choices else getattr(response, "message", None)
    content = getattr(message, "content", None) if message is not None else None
    if content is None and message is not None and hasattr(message, "text"):
        content = message.text
    return content if content is None or isinstance(content, str) else str(content)


async def embed_texts(model: Any, texts: list[str]) -> list[Any]:
    """One vector per text from an external embedding model (its errors propagate)."""
    vectors = list(await model.embed(texts))
    if len(vectors) != len(texts):
        raise ProviderError(f"the embedding model returned {len(vectors)} vectors for {len(texts)}")
    return vectors
