"""Prompts: sandboxed Jinja2 rendering of the templates judges and generators send.

Templates may come from spec files, so they render in an immutable sandbox (no
`__class__`/`__subclasses__` escapes, no mutating the trace) with StrictUndefined (a
typo is an error, not an empty string), a bound on the rendered size (prompt_limits.py)
and on `**`, and a bound on nesting (checked on the tokens, before Jinja2 recurses).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, UndefinedError
from jinja2.compiler import CodeGenerator, Frame
from jinja2.nodes import Concat
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from . import prompt_limits
from .prompt_limits import PromptTooLarge, describe, max_prompt_size

# Largest exponent for `**`.
_MAX_EXPONENT = 10_000
# Jinja2 parses and compiles recursively: past these a template would hit Python's recursion
# or nesting limits (80 nested parentheses, 100 nested blocks, a 500-term sum do), so such a
# template is a located problem before it is parsed, not a RecursionError.
_MAX_NESTING = 30
_MAX_CHAIN = 100
_BLOCK_TAGS = frozenset({"if", "for", "macro", "call", "filter", "with", "block", "autoescape"})
_CHAIN_OPERATORS = frozenset(
    {"+", "-", "*", "/", "//", "%", "**", "~", ".", "|", "[", "==", "!=", "<", "<=", ">", ">="}
)
_CHAIN_WORDS = frozenset({"and", "or", "not", "in", "is", "if", "else"})


class PromptError(ValueError):
    """A prompt template that cannot be rendered (syntax, undefined value, unsafe access)."""


def as_text(value: Any) -> str:
    """Strings as they are, anything else as readable JSON (the `text` filter)."""
    if isinstance(value, str):
        return value
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


class _BoundedCodeGenerator(CodeGenerator):
    """Compiles `a ~ b` to a join that first checks the size (the sandbox cannot see it)."""

    def visit_Concat(self, node: Concat, frame: Frame) -> None:
        self.write("environment.bounded_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class _PromptEnvironment(ImmutableSandboxedEnvironment):
    code_generator_class = _BoundedCodeGenerator
    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        prompt_limits.check_binop(operator, left, right)
        if operator == "**" and isinstance(right, int) and abs(right) > _MAX_EXPONENT:
            raise SecurityError("the template computes a power that is too large")
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        prompt_limits.check_call(__obj, args, kwargs)
        return super().call(__context, __obj, *args, **kwargs)

    @staticmethod
    def bounded_concat(parts: tuple[Any, ...]) -> str:
        return prompt_limits.concat(parts)


def fence(value: Any) -> str:
    """`text`, with `&`, `<` and `>` escaped: untrusted content (an agent's answer, a
    retrieved document) cannot close the prompt's <answer>-style tags or open new ones."""
    return as_text(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_environment = _PromptEnvironment(undefined=StrictUndefined, autoescape=False)
_environment.filters["text"] = as_text
_environment.filters.update(prompt_limits.FILTERS)
_environment.globals.update(prompt_limits.GLOBALS)
_environment.filters["fence"] = fence


@lru_cache(maxsize=256)
def _compile(template_text: str) -> Template:
    too_complex = _complexity(template_text)
    if too_complex is not None:
        message, line = too_complex
        raise PromptError(f"The prompt template is too complex: line {line}: {message}")
    return _environment.from_string(template_text)


def render_prompt(
    template_text: str, variables: dict[str, Any], max_size: int | None = None
) -> str:
    """Render a judge prompt in the sandbox; PromptError says what is wrong.

    The prompt may be at most `max_size` bytes (default: `max_prompt_size()`), checked while
    it renders, so an oversized prompt is never built whole, let alone sent.
    """
    limit = max_size if max_size is not None else max_prompt_size()
    try:
        template = prompt_limits.within_limit(lambda: _compile(template_text), limit)
        return prompt_limits.bounded_render(template.generate(**variables), limit)
    except PromptError:
        raise
    except PromptTooLarge as exc:
        raise PromptError(f"The prompt would be over the {describe(limit)}: {exc}") from None
    except TemplateSyntaxError as exc:
        raise PromptError(f"The prompt template has a syntax error: {_syntax(exc)}") from None
    except SecurityError as exc:
        raise PromptError(f"The prompt template was blocked by the sandbox: {exc}") from None
    except UndefinedError as exc:
        raise PromptError(f"The prompt template uses an undefined value: {exc}") from None
    except RecursionError:
        raise PromptError("The prompt template is nested too deeply to render") from None
    except Exception as exc:
        raise PromptError(
            f"The prompt template failed to render: {type(exc).__name__}: {exc}"
        ) from None


def template_syntax_error(text: str) -> str | None:
    """Why `text` is not a valid Jinja2 template (with its line), or None if it parses."""
    found = template_syntax_location(text)
    return None if found is None else f"line {found[1]}: {found[0]}"


def template_syntax_location(text: str) -> tuple[str, int] | None:
    """(message, 1-based line) of a template syntax error, or None if it parses."""
    try:
        too_complex = _complexity(text)
        if too_complex is not None:
            return too_complex
        _environment.parse(text)
    except TemplateSyntaxError as exc:
        return exc.message or "syntax error", exc.lineno
    except RecursionError:  # belt and braces: _complexity keeps templates well below it
        return "the template is nested too deeply to read", 1
    return None


def _complexity(text: str) -> tuple[str, int] | None:
    """(message, 1-based line) where the template nests or chains past the limits.

    Read from the lexer's tokens, which is iterative: brackets inside each other, blocks
    inside each other, and operators, attributes and filters chained in one expression.
    """
    brackets = blocks = chain = 0
    tag_start = False
    try:
        for line, kind, value in _environment.lex(text):
            if kind == "whitespace":
                continue
            if kind in ("variable_begin", "block_begin"):
                chain, tag_start = 0, kind == "block_begin"
                continue
            if tag_start and kind == "name":
                if value in _BLOCK_TAGS:
                    blocks += 1
                    if blocks > _MAX_NESTING:
                        return f"blocks are nested more than {_MAX_NESTING} deep", line
                elif value.startswith("end"):
                    blocks = max(0, blocks - 1)
            tag_start = False
            if kind == "operator" and value in "([{":
                brackets += 1
                if brackets > _MAX_NESTING:
                    return f"brackets are nested more than {_MAX_NESTING} deep", line
            elif kind == "operator" and value in ")]}":
                brackets = max(0, brackets - 1)
            if (kind == "operator" and value in _CHAIN_OPERATORS) or (
                kind == "name" and value in _CHAIN_WORDS
            ):
                chain += 1
                if chain > _MAX_CHAIN:
                    message = f"an expression chains more than {_MAX_CHAIN} operators or filters"
                    return message, line
    except TemplateSyntaxError:
        return None  # the parser says what is wrong, and where
    return None


def _syntax(exc: TemplateSyntaxError) -> str:
    return f"line {exc.lineno}: {exc.message}"
