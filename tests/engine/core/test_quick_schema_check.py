"""`quick_check` (engine/core/json_schema.py) says yes only to values the validator accepts,
and a dataset's schema problems are worded by the validator as before."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checkspec.engine.core.json_schema import bounded_errors, offline_validator, quick_check
from checkspec.engine.spec import schema_checks
from checkspec.engine.spec.datasets import CHAT_INPUT_SCHEMA, CHAT_OUTPUT_SCHEMA
from checkspec.engine.spec.document import analyze

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["user", "assistant", "robot", "", "x"])
)
_KEYS = st.sampled_from(["messages", "role", "content", "response", "metadata", "other"])
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)


def _message(role: Any, content: Any) -> dict[str, Any]:
    return {"role": role, "content": content}


# Values near the chat shape, right and wrong in one place or another.
_NEAR_CHAT = st.builds(
    lambda messages, extra: {"messages": messages, **extra},
    st.lists(
        st.builds(_message, st.sampled_from(["user", "system", "robot", 1]), _SCALARS) | _VALUES,
        max_size=3,
    ),
    st.dictionaries(_KEYS, _VALUES, max_size=1),
) | st.builds(
    lambda response, metadata: {"response": response, "metadata": metadata},
    st.builds(_message, st.sampled_from(["assistant", "tool", "nobody"]), _SCALARS) | _VALUES,
    st.dictionaries(_KEYS, _VALUES, max_size=1) | _VALUES,
)

_SCHEMAS = st.sampled_from(
    [
        CHAT_INPUT_SCHEMA,
        CHAT_OUTPUT_SCHEMA,
        {"type": "integer"},
        {"type": "number"},
        {"type": ["boolean", "null"]},
        {"type": "array", "items": {"type": "string"}, "minItems": 2},
        {"items": {"enum": ["a", "x", 1]}},
        {"required": ["role"], "properties": {"role": {"type": "string"}}},
        {},
    ]
)


@given(schema=_SCHEMAS, value=_VALUES | _NEAR_CHAT)
@settings(max_examples=400, deadline=None)
def test_quick_yes_means_the_validator_finds_nothing(schema: Any, value: Any) -> None:
    quick = quick_check(schema)
    assert quick is not None
    if quick(value):
        assert bounded_errors(offline_validator(schema), value, 5.0) == []


def test_quick_check_accepts_the_common_chat_values() -> None:
    message = {"role": "user", "content": "hi"}
    assert quick_check(CHAT_INPUT_SCHEMA)({"messages": [message, _message("system", None)]})  # type: ignore[misc]
    output = {"response": _message("assistant", "ok"), "metadata": {}}
    assert quick_check(CHAT_OUTPUT_SCHEMA)(output)  # type: ignore[misc]
    assert not quick_check(CHAT_INPUT_SCHEMA)({"messages": []})  # type: ignore[misc]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^a"},  # a keyword it does not know
        {"items": [{"type": "string"}]},  # tuple form
        {"$schema": "http://json-schema.org/draft-03/schema#", "type": "string"},
        {"properties": {"a": True}},
        True,
    ],
)
def test_quick_check_leaves_other_schemas_to_the_validator(schema: Any) -> None:
    assert quick_check(schema) is None


BAD_ROWS = [
    '{"interactions": [{"input": {"messages": []}}]}',
    '{"interactions": [{"input": {"messages": [{"role": "robot", "content": 1}]}}]}',
    '{"interactions": [{"input": {"nope": 1}, "output": {"response": {"role": "user"}}}]}',
    '{"interactions": [{"input": "text", "output": {"response": "x", "metadata": []}}]}',
    '{"interactions": [{"input": {"messages": [1, {"content": null}]}, "output": 3}]}',
]


def test_schema_problems_are_the_same_with_and_without_the_quick_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "\n".join(BAD_ROWS) + "\n"

    def schema_problems() -> list[Any]:
        doc = analyze(text, "d.dataset.jsonl")
        found = [p for p in doc.every_problem() if p.code == "schema-mismatch"]
        return sorted((p.range, p.message) for p in found)

    quick = schema_problems()
    monkeypatch.setattr(schema_checks, "quick_check", lambda schema: None)
    assert schema_problems() == quick
    assert len(quick) >= len(BAD_ROWS)
