"""A judge prompt that cannot be rendered says why (engine/llm/prompts.py): blocked by the
sandbox, an undefined value, a syntax error with its line, too deeply nested or too long
a chain (said before it is compiled), a prompt over the size limit, and any other
failure with its exception; values are given to the `text` filter as readable JSON."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from checkspec.engine.llm.prompts import (
    PromptError,
    as_text,
    render_prompt,
    template_syntax_error,
)

NESTED_BRACKETS = "{{ " + "(" * 40 + "1" + ")" * 40 + " }}"
NESTED_BLOCKS = "{% if a %}" * 40 + "x" + "{% endif %}" * 40
LONG_CHAIN = "{{ " + " ~ ".join(["a"] * 120) + " }}"


@pytest.mark.parametrize(
    ("template", "said"),
    [
        (
            "{{ 2 ** 100000 }}",
            "blocked by the sandbox: the template computes a power that is too large",
        ),
        ("{{ x.__class__ }}", "blocked by the sandbox: access to attribute '__class__'"),
        ("{{ nope }}", "uses an undefined value: 'nope' is undefined"),
        ("line\n{% for %}", "has a syntax error: line 2: Expected an expression"),
        (NESTED_BRACKETS, "is too complex: line 1: brackets are nested more than 30 deep"),
        (NESTED_BLOCKS, "is too complex: line 1: blocks are nested more than 30 deep"),
        (LONG_CHAIN, "is too complex: line 1: an expression chains more than 100 operators"),
        ("{{ 1 / 0 }}", "failed to render: ZeroDivisionError: division by zero"),
    ],
)
def test_a_prompt_that_cannot_be_rendered_says_why(template: str, said: str) -> None:
    with pytest.raises(PromptError) as refused:
        render_prompt(template, {"x": 1, "a": "x"})
    assert said in str(refused.value)


def test_a_prompt_over_the_size_limit_is_never_built_whole() -> None:
    with pytest.raises(PromptError, match="The prompt would be over the"):
        render_prompt("{{ 'x' * 5000 }}", {}, max_size=1000)
    assert render_prompt("{{ 'x' * 10 }}", {}, max_size=1000) == "x" * 10


def test_the_syntax_check_names_the_line_or_nothing() -> None:
    assert template_syntax_error("ok {{ a }}") is None
    assert template_syntax_error("a\nb\n{% for %}") == (
        "line 3: Expected an expression, got 'end of statement block'"
    )
    assert template_syntax_error(NESTED_BRACKETS) == "line 1: brackets are nested more than 30 deep"


class Answer(BaseModel):
    text: str = "hi"
    score: int = 3


def test_values_are_text_as_readable_json() -> None:
    assert as_text("as it is") == "as it is"
    assert as_text(Answer()) == '{\n  "text": "hi",\n  "score": 3\n}'
    assert (
        render_prompt("{{ value | text }}", {"value": {"é": [1]}}) == '{\n  "é": [\n    1\n  ]\n}'
    )
