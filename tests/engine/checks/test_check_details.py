"""The details a check result carries on each of its paths, where the conformance corpus
does not compare them with the original library's (json_valid, rego_policy, hub_metadata),
and the JSON Schema pieces the models give the schema generator."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from checkspec.engine import Check, Equals, HubMetadata, JsonValid, RegoPolicy, Trace
from checkspec.engine.core.check import ANY_KIND_MARKER
from checkspec.engine.core.jsonpath import JSONPathStr, NoMatch


def trace_of(outputs: Any) -> Trace:
    return Trace.model_validate({"interactions": [{"inputs": "q", "outputs": outputs}]})


async def test_json_valid_details_on_every_path() -> None:
    missing = await JsonValid(target_key="trace.last.metadata.x").run(trace_of("{}"))
    assert missing.details == {
        "target_key": "trace.last.metadata.x",
        "value": NoMatch("trace.last.metadata.x"),
        "schema": None,
    }
    bad = await JsonValid().run(trace_of("{nope"))
    assert bad.details == {
        "target_key": "trace.last.outputs",
        "value": "{nope",
        "schema": None,
        "error": "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
    }
    assert bad.message == (
        "Value at key 'trace.last.outputs' is not valid JSON: Expecting property name "
        "enclosed in double quotes: line 1 column 2 (char 1)"
    )
    odd = await JsonValid().run(trace_of({1, 2}))
    assert odd.status == "fail"
    assert odd.details["error"] == "Object of type set is not JSON serializable"
    assert odd.message == (
        "Value at key 'trace.last.outputs' is not JSON serializable: "
        "Object of type set is not JSON serializable"
    )
    schema = {"$ref": "#/$defs/nope"}
    unresolvable = await JsonValid(expected_schema=schema).run(trace_of("{}"))
    assert unresolvable.status == "error"
    assert unresolvable.message.startswith("JSON Schema contains an unresolvable $ref: ")
    assert unresolvable.details == {
        "target_key": "trace.last.outputs",
        "value": "{}",
        "schema": schema,
        "parsed_value": {},
    }
    mismatch = await JsonValid(expected_schema={"type": "array"}).run(trace_of('{"a": 1}'))
    assert mismatch.details["error"] == "{'a': 1} is not of type 'array'"
    assert mismatch.details["parsed_value"] == {"a": 1}


POLICY = 'package giskard\n\nallow if {\n    input.role == "admin"\n}\n'


async def test_rego_policy_details_and_evaluation_errors() -> None:
    check = RegoPolicy(policy=POLICY, rule="data.giskard.allow")
    denied = await check.run(trace_of({"role": "user"}))
    assert (denied.status, denied.details) == (
        "fail",
        {
            "target_key": "trace.last.outputs",
            "data": {},
            "rule": "data.giskard.allow",
            "input": {"role": "user"},
            "value": None,
        },
    )
    allowed = await check.run(trace_of({"role": "admin"}))
    assert allowed.details["value"] is True and allowed.details["input"] == {"role": "admin"}
    broken = await RegoPolicy(
        policy="package giskard\n\nx := 1 / input.zero\n", rule="data.giskard.x"
    ).run(trace_of({"zero": 0}))
    assert broken.status == "error"
    assert broken.message == "Rego policy evaluation failed: divide by zero at line 3, column 8"
    assert broken.details == {
        "target_key": "trace.last.outputs",
        "data": {},
        "rule": "data.giskard.x",
        "input": {"zero": 0},
        "error": "divide by zero at line 3, column 8",
    }


async def test_hub_metadata_details() -> None:
    rule = {"json_path": "$.a", "expected_value": 1, "expected_value_type": "number"}
    check = HubMetadata(json_path_rules=[rule, {**rule, "json_path": "$.b"}])
    missing = await check.run(trace_of("no metadata"))
    assert missing.details == {"metadata": NoMatch("trace.last.outputs.metadata")}
    result = await check.run(trace_of({"metadata": {"a": 1, "b": 2}}))
    assert result.message == "Metadata rules not met: $.b: expected 1, got 2"
    assert result.details == {"metadata": {"a": 1, "b": 2}, "problems": ["$.b: expected 1, got 2"]}
    both = await check.run(trace_of({"metadata": {}}))
    assert both.message == "Metadata rules not met: $.a: no value; $.b: no value"
    ok = await check.run(trace_of({"metadata": {"a": 1, "b": 1.0}}))
    assert (ok.message, ok.details["problems"]) == ("All 2 metadata rule(s) hold.", [])


class Holder(BaseModel):
    path: JSONPathStr
    check: Check


def test_schema_pieces_for_selectors_and_check_fields() -> None:
    schema = Holder.model_json_schema()
    assert schema["properties"]["path"] == {
        "type": "string",
        "title": "Path",
        "pattern": r"^trace\.",
        "format": "jsonpath",
        "examples": ["trace.last.outputs"],
    }
    assert schema["properties"]["check"] == {"$ref": "#/$defs/Check"}
    assert schema["$defs"]["Check"] == {ANY_KIND_MARKER: "Check"}
    kind = Equals.model_json_schema()["properties"]["kind"]
    assert kind["const"] == "equals" and kind["default"] == "equals"
    assert (
        Equals.model_fields["kind"].description == "Which kind this is (its registered identifier)."
    )
