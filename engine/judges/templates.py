"""Judge prompts: sandboxed Jinja2 rendering and the bundled prompt files.

Templates may come from spec files, so they render in an immutable sandbox (no
`__class__`/`__subclasses__` escapes, no mutating the trace) with StrictUndefined (a
typo is an error, not an empty string) and with size limits on `*` and `**`.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, UndefinedError
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

# Largest string/list a template may build with `*`, and largest exponent for `**`.
_MAX_REPEAT_SIZE = 1_000_000
_MAX_EXPONENT = 10_000


class PromptError(ValueError):
    """A prompt template that cannot be rendered (syntax, undefined value, unsafe access)."""


def as_text(value: Any) -> str:
    """Strings as they are, anything else as readable JSON (the `text` filter)."""
    if isinstance(value, str):
        return value
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


class _PromptEnvironment(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                sized = isinstance(seq, str | list | tuple) and isinstance(times, int)
                if sized and len(seq) * times > _MAX_REPEAT_SIZE:
                    raise SecurityError("the template builds a value that is too large")
        if operator == "**" and isinstance(right, int) and abs(right) > _MAX_EXPONENT:
            raise SecurityError("the template computes a power that is too large")
        return super().call_binop(context, operator, left, right)


def fence(value: Any) -> str:
    """`text`, with `&`, `<` and `>` escaped: untrusted content (an agent's answer, a
    retrieved document) cannot close the prompt's <answer>-style tags or open new ones."""
    return as_text(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_environment = _PromptEnvironment(undefined=StrictUndefined, autoescape=False)
_environment.filters["text"] = as_text
_environment.filters["fence"] = fence


@lru_cache(maxsize=256)
def _compile(template_text: str) -> Template:
    return _environment.from_string(template_text)


def render_prompt(template_text: str, variables: dict[str, Any]) -> str:
    """Render a judge prompt in the sandbox; PromptError says what is wrong."""
    try:
        return _compile(template_text).render(**variables)
    except TemplateSyntaxError as exc:
        raise PromptError(f"The prompt template has a syntax error: {_syntax(exc)}") from None
    except SecurityError as exc:
        raise PromptError(f"The prompt template was blocked by the sandbox: {exc}") from None
    except UndefinedError as exc:
        raise PromptError(f"The prompt template uses an undefined value: {exc}") from None
    except Exception as exc:
        raise PromptError(
            f"The prompt template failed to render: {type(exc).__name__}: {exc}"
        ) from None


def template_syntax_error(text: str) -> str | None:
    """Why `text` is not a valid Jinja2 template (with its line), or None if it parses."""
    try:
        _environment.parse(text)
    except TemplateSyntaxError as exc:
        return _syntax(exc)
    return None


def template_syntax_location(text: str) -> tuple[str, int] | None:
    """(message, 1-based line) of a template syntax error, or None if it parses."""
    try:
        _environment.parse(text)
    except TemplateSyntaxError as exc:
        return exc.message or "syntax error", exc.lineno
    return None


def _syntax(exc: TemplateSyntaxError) -> str:
    return f"line {exc.lineno}: {exc.message}"


@cache
def bundled_prompt(name: str) -> str:
    """The text of prompts/<name>.j2 shipped with the package."""
    return resources.files(__package__).joinpath("prompts", f"{name}.j2").read_text("utf-8")
