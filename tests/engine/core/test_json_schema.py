"""JSON Schema checks never read the network and never run unbounded."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema.validators import validator_for

from checkspec.engine import Interaction, JsonValid, Trace
from checkspec.engine.core.json_schema import (
    SchemaTimeout,
    bounded_errors,
    offline_validator,
    remote_refs,
    schema_problem,
)
from checkspec.engine.spec.document import Document, analyze

CATASTROPHIC = "^(a|aa)+$"
SLOW_TEXT = "a" * 50 + "b"


@pytest.fixture
def listener() -> Iterator[tuple[str, socket.socket]]:
    """A local address that records whether anything connects to it."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.setblocking(False)
    yield f"http://127.0.0.1:{server.getsockname()[1]}/x.json", server
    server.close()


def connected(server: socket.socket) -> bool:
    try:
        server.accept()[0].close()
    except BlockingIOError:
        return False
    return True


def dataset(output_schema: Any, *outputs: Any) -> Document:
    text = json.dumps(
        {
            "name": "d",
            "input_schema": {"type": "string"},
            "output_schema": output_schema,
            "scenarios": [{"interactions": [{"input": "hi", "output": o}]} for o in outputs],
        },
        indent=2,
    )
    return analyze(text, "d.dataset.json")


def at(document: Document, code: str) -> list[tuple[int, int, str]]:
    return [
        (
            p.range.start.line,
            p.range.start.character,
            document.source.text.splitlines()[p.range.start.line].strip(),
        )
        for p in document.all_problems
        if p.code == code
    ]


def test_a_remote_ref_is_a_problem_at_the_ref_and_is_never_fetched(
    listener: tuple[str, socket.socket],
) -> None:
    url, server = listener
    document = dataset({"type": "object", "properties": {"a": {"$ref": url}}}, {"a": 1})
    (problem,) = document.all_problems
    assert problem.code == "remote-ref"
    assert f"$ref '{url}' points outside this schema" in problem.message
    line = document.source.text.splitlines()[problem.range.start.line]
    assert line[problem.range.start.character :].startswith(f'"{url}"')
    assert not connected(server)


def test_json_valid_with_a_remote_ref_is_refused_and_never_fetches(
    listener: tuple[str, socket.socket],
) -> None:
    url, server = listener
    with pytest.raises(ValueError, match="points outside this schema"):
        JsonValid(expected_schema={"$ref": url})
    assert not connected(server)


async def test_a_ref_that_slips_through_is_unresolvable_not_fetched(
    listener: tuple[str, socket.socket],
) -> None:
    url, server = listener
    check = JsonValid.model_construct(
        expected_schema={"$ref": url}, target_key="trace.last.outputs", parse=True
    )
    result = await check.run(Trace(interactions=[Interaction(inputs="q", outputs={"a": 1})]))
    assert result.errored and "unresolvable $ref" in (result.message or "")
    assert not connected(server)


def test_local_and_meta_schema_refs_are_not_remote() -> None:
    schema = {
        "$id": "https://example.com/root.json",
        "$defs": {"item": {"$id": "item.json", "type": "string"}, "n": {"type": "number"}},
        "properties": {
            "a": {"$ref": "item.json"},
            "b": {"$ref": "#/$defs/n"},
            "c": {"$ref": "https://json-schema.org/draft/2020-12/schema"},
            "d": {"$ref": "https://example.com/root.json#/$defs/n"},
            "e": {"$ref": "other.json"},
        },
    }
    assert remote_refs(schema) == [(["properties", "e", "$ref"], "other.json")]
    assert remote_refs({"$ref": "#"}) == []


def test_a_catastrophic_pattern_is_a_problem_at_the_pattern_and_is_stopped_once() -> None:
    schema = {"type": "object", "properties": {"r": {"type": "string", "pattern": CATASTROPHIC}}}
    started = time.perf_counter()
    document = dataset(schema, {"r": SLOW_TEXT}, {"r": SLOW_TEXT}, {"r": SLOW_TEXT})
    assert time.perf_counter() - started < 10  # measured: the 0.25 s limit, once
    (problem,) = document.all_problems
    assert problem.code == "schema-timeout"
    assert f"the pattern '{CATASTROPHIC}' took more than 0.25 s" in problem.message
    assert at(document, "schema-timeout")[0][2] == f'"pattern": "{CATASTROPHIC}"'


def test_a_catastrophic_pattern_property_is_a_problem_at_its_key() -> None:
    schema = {"type": "object", "patternProperties": {CATASTROPHIC: {"type": "number"}}}
    document = dataset(schema, {SLOW_TEXT: 1})
    assert at(document, "schema-timeout")[0][2].startswith(f'"{CATASTROPHIC}"')
    schema = {
        "type": "object",
        "additionalProperties": False,
        "patternProperties": {CATASTROPHIC: {}},
    }
    document = dataset(schema, {SLOW_TEXT: 1})
    assert [p.code for p in document.all_problems] == ["schema-timeout"]


def test_the_deadline_bounds_exponential_schemas() -> None:
    # anyOf tries both branches at each level (the first fails after descending):
    # jsonschema alone would make 2**60 descents.
    branch = {"items": {"$ref": "#/$defs/t"}}
    schema = {"$defs": {"t": {"anyOf": [{**branch, "minItems": 2}, branch]}}, "$ref": "#/$defs/t"}
    value: Any = 1
    for _ in range(60):
        value = [value]
    started = time.perf_counter()
    with pytest.raises(SchemaTimeout):
        bounded_errors(offline_validator(schema), value, 0.2)
    assert time.perf_counter() - started < 10


def test_unevaluated_properties_with_pattern_properties_is_refused() -> None:
    schema = {"patternProperties": {"^a": {}}, "unevaluatedProperties": False}
    assert "not supported" in (schema_problem(schema) or "")


async def test_json_valid_with_a_catastrophic_pattern_errors_within_its_limit() -> None:
    check = JsonValid(expected_schema={"type": "string", "pattern": CATASTROPHIC}, parse=False)
    started = time.perf_counter()
    result = await check.run(Trace(interactions=[Interaction(inputs="q", outputs=SLOW_TEXT)]))
    assert time.perf_counter() - started < 20
    assert result.errored
    assert f"matching the pattern '{CATASTROPHIC}' took more than 2 s" in (result.message or "")


SCHEMAS = [
    {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
    {
        "type": "object",
        "patternProperties": {"^x": {"type": "number"}},
        "additionalProperties": False,
    },
    {
        "type": "object",
        "patternProperties": {"^x": {"type": "number"}},
        "additionalProperties": {"type": "string"},
    },
    {"type": "array", "uniqueItems": True},
    {"type": "string", "pattern": "^[a-c]+$"},
    {"propertyNames": {"pattern": "^[a-z]+$"}},
]
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([1.0, 2.5, 0.0])
    | st.sampled_from(["a", "x1", "abc", "B", ""]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "x", "x2", "b", "Z"]), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SCHEMAS), JSON)
def test_bounded_keywords_agree_with_jsonschema(schema: dict[str, Any], value: Any) -> None:
    ours = [
        (list(e.absolute_path), e.message)
        for e in bounded_errors(offline_validator(schema), value, 5)
    ]
    theirs = [
        (list(e.absolute_path), e.message) for e in validator_for(schema)(schema).iter_errors(value)
    ]
    assert sorted(ours, key=str) == sorted(theirs, key=str)


def test_a_pattern_that_does_not_compile_is_a_schema_problem() -> None:
    document = dataset({"type": "string", "pattern": "(unclosed"}, "x")
    (problem,) = document.all_problems
    assert problem.code == "invalid-schema"
    assert "'(unclosed' is not a 'regex'" in problem.message
    with pytest.raises(ValueError, match="is not a 'regex'"):
        JsonValid(expected_schema={"patternProperties": {"[": {}}})
