"""bench/peer_standin.py answers each peer's prompts in the shape it asks for (issue 38's
side-by-side bench): a response_format schema, a schema written in the prompt, a JSON
example, a mapping keyed by the input's names. Nothing about speed is asserted."""

from __future__ import annotations

import json
from types import ModuleType

from tests.support.paths import REPO, load_script


def _standin() -> ModuleType:
    return load_script(REPO / "bench" / "peer_standin.py", "bench_peer_standin")


def _chat(prompt: str, **extra: object) -> object:
    return json.loads(
        _standin().answer({"messages": [{"role": "user", "content": prompt}], **extra})
    )


def test_a_response_format_schema_is_filled_refs_and_all() -> None:
    schema = {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}, "minItems": 3},
            "score": {"type": "integer", "minimum": 1, "maximum": 5},
        },
        "$defs": {"Item": {"type": "object", "properties": {"ok": {"type": "boolean"}}}},
    }
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    answer = _chat("Rate the passage about parcels and couriers.", response_format=fmt)
    assert answer == {"items": [{"ok": True}] * 3, "score": 5}


def test_a_schema_in_the_prompt_and_a_mapping_keyed_by_the_inputs_names() -> None:
    schema = {
        "type": "object",
        "properties": {
            "mapping": {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
            }
        },
    }
    prompt = (
        f"Return JSON that complies with the following JSON Schema: {json.dumps(schema)}\n"
        'Example input: {"themes": ["Cooking"], "personas": [{"name": "Chef"}]}\n'
        'Now: {"themes": ["Refunds", "Parcels"], "personas": [{"name": "Buyer"}, {"name": "Clerk"}]}'
    )
    assert _chat(prompt) == {
        "mapping": {"Buyer": ["Refunds", "Parcels"], "Clerk": ["Refunds", "Parcels"]}
    }


def test_the_last_json_example_is_refilled_and_a_list_asked_for_is_a_list() -> None:
    prompt = (
        'Output a JSON object like {"question": "Where is it?", "answer": "Here."}\n'
        "Context: parcels travel with couriers to every country."
    )
    answer = _chat(prompt)
    assert isinstance(answer, dict) and set(answer) == {"question", "answer"}
    listed = _chat(
        prompt.replace("Output a JSON object", "You must output a list of two JSON objects")
    )
    assert isinstance(listed, list) and len(listed) == 2
