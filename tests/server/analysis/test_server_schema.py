"""What completion and hover know of each mapping, read from the engine's models
(server/analysis/schema.py): every parameter of the built-in checks as it is documented
(type, default as written in a file, accepted values, JSONPath or not, other spellings),
the dataset defaults, and the shape found at each place of each file kind."""

from __future__ import annotations

from typing import Any

import pytest

from checkspec.engine.core.check import Check
from checkspec.engine.interactions import InteractionSpec
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.kinds import FileKind
from checkspec.server.analysis.context import frames_along
from checkspec.server.analysis.schema import (
    FieldDoc,
    MappingShape,
    check_fields,
    root_shape,
    shape_at,
)
from tests.support.analysis import WORKSPACE


def line(f: FieldDoc) -> str:
    text = f"{f.name}: {f.type}"
    text += " (required)" if f.default is None else f" = {f.default}"
    if f.choices:
        text += f" choices={list(f.choices)}"
    if f.jsonpath:
        text += " jsonpath"
    if f.spellings and f.spellings != (f.name,):
        text += f" spellings={list(f.spellings)}"
    return text


def cls_of(kind: str) -> Any:
    if kind.startswith("interaction:"):
        return InteractionSpec.registry()[kind.split(":", 1)[1]]
    return Check.registry()[kind]


FIELDS = {
    "string_matching": [
        "text: string = not set",
        "target_key: JSONPath = \"trace.last.outputs\" jsonpath spellings=['key', 'text_key']",
        "keyword: string = not set",
        "keyword_key: JSONPath = not set jsonpath",
        "normalization_form: 'NFC' | 'NFD' | 'NFKC' | 'NFKD' | null = \"NFKC\" choices=['NFC', 'NFD', 'NFKC', 'NFKD']",
        "case_sensitive: boolean = true choices=['true', 'false']",
        "name: string | null = null",
        "description: string | null = null",
        "enabled: boolean = true choices=['true', 'false']",
    ],
    "regex_matching": [
        "text: string = not set",
        "target_key: JSONPath = \"trace.last.outputs\" jsonpath spellings=['key', 'text_key']",
        "pattern: string = not set",
        "pattern_key: JSONPath = not set jsonpath",
        "match_timeout_seconds: number = 1.0",
        "name: string | null = null",
        "description: string | null = null",
        "enabled: boolean = true choices=['true', 'false']",
    ],
    "equals": [
        "target_key: JSONPath = \"trace.last.outputs\" jsonpath spellings=['key', 'text_key']",
        "expected_value: any = not set",
        "expected_value_key: JSONPath = not set jsonpath",
        "normalization_form: 'NFC' | 'NFD' | 'NFKC' | 'NFKD' | null = \"NFKC\" choices=['NFC', 'NFD', 'NFKC', 'NFKD']",
        "match: 'any' | 'all' | 'none' = not set choices=['any', 'all', 'none']",
        "name: string | null = null",
        "description: string | null = null",
        "enabled: boolean = true choices=['true', 'false']",
    ],
    "greater_than": [
        "target_key: JSONPath = \"trace.last.outputs\" jsonpath spellings=['key', 'text_key']",
        "expected_value: any = not set",
        "expected_value_key: JSONPath = not set jsonpath",
        "normalization_form: 'NFC' | 'NFD' | 'NFKC' | 'NFKD' | null = \"NFKC\" choices=['NFC', 'NFD', 'NFKC', 'NFKD']",
        "match: 'any' | 'all' | 'none' = not set choices=['any', 'all', 'none']",
        "name: string | null = null",
        "description: string | null = null",
        "enabled: boolean = true choices=['true', 'false']",
    ],
    "less_than_equals": [
        "target_key: JSONPath = \"trace.last.outputs\" jsonpath spellings=['key', 'text_key']",
        "expected_value: any = not set",
        "expected_value_key: JSONPath = not set jsonpath",
        "normalization_form: 'NFC' | 'NFD' | 'NFKC' | 'NFKD' | null = \"NFKC\" choices=['NFC', 'NFD', 'NFKC', 'NFKD']",
        "match: 'any' | 'all' | 'none' = not set choices=['any', 'all', 'none']",
        "name: string | null = null",
        "description: string | null = null",
        "enabled: boolean = true choices=['true', 'false']",
    ],
    "fn": [
        "fn: string (required)",
        "success_message: string | null = null",
        "failure_message: string | null = null",
        "details: mapping = {}",
        "name: string | null = null",
        "description: string | null = null",
        "enabled: boolean = true choices=['true', 'false']",
    ],
    "hub_metadata": [
        'metadata_key: JSONPath = "trace.last.outputs.metadata" jsonpath',
        "json_path_rules: list[JsonPathRule] (required)",
        "name: string | null = null",
        "description: string | null = null",
        "enabled: boolean = true choices=['true', 'false']",
    ],
    "json_valid": [
        "target_key: JSONPath = \"trace.last.outputs\" jsonpath spellings=['key', 'text_key']",
        "expected_schema: mapping | null = null spellings=['schema']",
        "parse: boolean = true choices=['true', 'false']",
        "name: string | null = null",
        "description: string | null = null",
        "enabled: boolean = true choices=['true', 'false']",
    ],
    "readability": [
        "target_key: JSONPath = \"trace.last.outputs\" jsonpath spellings=['key', 'text_key']",
        "metric: 'flesch_reading_ease' | 'flesch_kincaid_grade' | 'gunning_fog' | 'automated_readability_index' | 'coleman_liau_index' | 'dale_chall_readability_score' = \"flesch_reading_ease\" choices=['flesch_reading_ease', 'flesch_kincaid_grade', 'gunning_fog', 'automated_readability_index', 'coleman_liau_index', 'dale_chall_readability_score']",
        "min_score: number | null = null",
        "max_score: number | null = null",
        "name: string | null = null",
        "description: string | null = null",
        "enabled: boolean = true choices=['true', 'false']",
    ],
    "rego_policy": [
        "policy: string (required)",
        "rule: string (required)",
        "target_key: JSONPath = \"trace.last.outputs\" jsonpath spellings=['key', 'text_key']",
        "data: mapping = {}",
        "name: string | null = null",
        "description: string | null = null",
        "enabled: boolean = true choices=['true', 'false']",
    ],
    "all_of": [
        "checks: list[check] (required)",
        "name: string | null = null",
        "description: string | null = null",
        "enabled: boolean = true choices=['true', 'false']",
        "expect: 'pass' | 'fail' | null = null choices=['pass', 'fail']",
    ],
    "any_of": [
        "checks: list[check] (required)",
        "name: string | null = null",
        "description: string | null = null",
        "enabled: boolean = true choices=['true', 'false']",
        "expect: 'pass' | 'fail' | null = null choices=['pass', 'fail']",
    ],
    "not": [
        "check: check (required)",
        "name: string | null = null",
        "description: string | null = null",
        "enabled: boolean = true choices=['true', 'false']",
        "expect: 'pass' | 'fail' | null = null choices=['pass', 'fail']",
    ],
    "interaction:interact": [
        "inputs: any (required)",
        "outputs: any = not set",
        "metadata: mapping = {}",
    ],
    "interaction:with_spy": [
        "interaction_generator: interaction (required)",
        "target: string (required)",
    ],
}
DATASET_FIELDS = {
    "string_matching": [
        "target_key: JSONPath = \"trace.last.outputs.response.content\" jsonpath spellings=['key', 'text_key']"
    ],
    "regex_matching": [
        "target_key: JSONPath = \"trace.last.outputs.response.content\" jsonpath spellings=['key', 'text_key']"
    ],
    "equals": [
        "target_key: JSONPath = \"trace.last.outputs.response.content\" jsonpath spellings=['key', 'text_key']"
    ],
    "greater_than": [
        "target_key: JSONPath = \"trace.last.outputs.metadata.score\" jsonpath spellings=['key', 'text_key']"
    ],
    "less_than_equals": [
        "target_key: JSONPath = \"trace.last.outputs.metadata.score\" jsonpath spellings=['key', 'text_key']"
    ],
    "fn": [],
    "hub_metadata": [],
    "json_valid": [
        "target_key: JSONPath = \"trace.last.outputs.response.content\" jsonpath spellings=['key', 'text_key']"
    ],
    "readability": [
        "target_key: JSONPath = \"trace.last.outputs.response.content\" jsonpath spellings=['key', 'text_key']"
    ],
    "rego_policy": [
        "target_key: JSONPath = \"trace.last.outputs.response.content\" jsonpath spellings=['key', 'text_key']"
    ],
    "all_of": [],
    "any_of": [],
    "not": [],
}


@pytest.mark.parametrize("kind", FIELDS)
def test_every_parameter_is_documented_as_written_in_a_file(kind: str) -> None:
    assert [line(f) for f in check_fields(cls_of(kind)).values()] == FIELDS[kind]
    fields = check_fields(cls_of(kind))
    assert all(f.required == (f.default is None) for f in fields.values())


@pytest.mark.parametrize("kind", DATASET_FIELDS)
def test_dataset_files_document_the_dataset_defaults(kind: str) -> None:
    plain, dataset = check_fields(cls_of(kind)), check_fields(cls_of(kind), dataset=True)
    assert [line(f) for n, f in dataset.items() if plain.get(n) != f] == DATASET_FIELDS[kind]
    assert list(plain) == list(dataset)


def shown(shape: MappingShape | None) -> Any:
    if shape is None:
        return None
    return (
        shape.head,
        getattr(shape.family, "__name__", None),
        getattr(shape.check, "__name__", None),
        shape.custom.identifier if shape.custom else None,
        shape.custom_allowed,
        list(shape.fields),
    )


def test_the_root_of_each_file_kind() -> None:
    assert {kind: shown(root_shape(kind))[-1] for kind in FileKind} == {
        FileKind.SCENARIO: [
            "name",
            "description",
            "target",
            "tags",
            "annotations",
            "steps",
            "multiple_runs",
            "status",
            "comments",
            "$schema",
        ],
        FileKind.SUITE: ["name", "description", "target", "tags", "scenarios", "$schema"],
        FileKind.DATASET: [
            "name",
            "description",
            "input_schema",
            "output_schema",
            "target",
            "tags",
            "scenarios",
            "$schema",
        ],
        FileKind.CONFIG: [
            "$schema",
            "model",
            "llm_client",
            "embedding_model",
            "api_base",
            "embedding_api_base",
            "target",
            "concurrency",
            "target_timeout",
            "scenario_timeout",
            "rerun",
            "jobs",
            "python",
            "max_file_size",
            "max_dataset_file_size",
            "max_prompt_size",
            "max_parallel_requests",
            "rpm",
            "tpm",
            "models",
            "cache",
            "cache_dir",
            "cache_max_mb",
            "max_cost",
            "history",
            "history_max_runs",
            "capture",
            "diagnostics_scope",
            "custom_checks",
            "agent",
            "presets",
            "generate",
        ],
    }
    # Every root is titled from its model (the suite's is SuiteFile, as the others').
    assert root_shape(FileKind.SUITE).title == "in a suite"
    assert root_shape(FileKind.SCENARIO).title == "in a scenario"


SUITE = (
    "name: s\nscenarios:\n  - name: a\n    steps:\n      - interacts: [{inputs: a}]\n"
    "        checks: [{kind: all_of, checks: [{kind: not, check: {kind: equals}}]}]\n"
)
DATASET = (
    "name: f\nscenarios:\n  - interactions:\n      - input: hi\n        checks:\n"
    "          - identifier: equals\n            params: {expected_value: 1}\n"
    "          - identifier: custom_polite\n            params: {}\n"
)
CONFIG = (
    "custom_checks:\n  - identifier: custom_x\n    params: {type: regex_matching, pattern: a}\n"
)
STEP = ["scenarios", 0, "steps", 0]
TURN = ["scenarios", 0, "interactions", 0]
SHAPES = [
    (
        "t.suite.yaml",
        SUITE,
        ["scenarios", 0],
        (
            None,
            None,
            None,
            None,
            False,
            [
                "name",
                "description",
                "target",
                "tags",
                "annotations",
                "steps",
                "multiple_runs",
                "status",
                "comments",
            ],
        ),
    ),
    ("t.suite.yaml", SUITE, STEP, (None, None, None, None, False, ["interacts", "checks"])),
    (
        "t.suite.yaml",
        SUITE,
        [*STEP, "interacts", 0],
        (
            "kind",
            "InteractionSpec",
            "Interact",
            None,
            False,
            ["kind", "inputs", "outputs", "metadata"],
        ),
    ),
    (
        "t.suite.yaml",
        SUITE,
        [*STEP, "checks", 0],
        (
            "kind",
            "Check",
            "AllOf",
            None,
            True,
            ["checks", "kind", "name", "description", "enabled", "expect"],
        ),
    ),
    (
        "t.suite.yaml",
        SUITE,
        [*STEP, "checks", 0, "checks", 0],
        (
            "kind",
            "Check",
            "Not",
            None,
            True,
            ["check", "kind", "name", "description", "enabled", "expect"],
        ),
    ),
    (
        "t.suite.yaml",
        SUITE,
        [*STEP, "checks", 0, "checks", 0, "check"],
        (
            "kind",
            "Check",
            "Equals",
            None,
            True,
            [
                "target_key",
                "expected_value",
                "expected_value_key",
                "normalization_form",
                "match",
                "kind",
                "name",
                "description",
                "enabled",
            ],
        ),
    ),
    (
        "f.dataset.yaml",
        DATASET,
        ["scenarios", 0],
        (
            None,
            None,
            None,
            None,
            False,
            ["name", "description", "tags", "interactions", "annotations", "status", "comments"],
        ),
    ),
    (
        "f.dataset.yaml",
        DATASET,
        TURN,
        (None, None, None, None, False, ["input", "output", "checks"]),
    ),
    (
        "f.dataset.yaml",
        DATASET,
        [*TURN, "checks", 0],
        (
            "identifier",
            "Check",
            None,
            None,
            True,
            ["identifier", "params", "name", "enabled", "expect"],
        ),
    ),
    (
        "f.dataset.yaml",
        DATASET,
        [*TURN, "checks", 0, "params"],
        (
            None,
            None,
            "Equals",
            None,
            False,
            [
                "target_key",
                "expected_value",
                "expected_value_key",
                "normalization_form",
                "match",
                "name",
                "description",
                "enabled",
            ],
        ),
    ),
    (
        "f.dataset.yaml",
        DATASET,
        [*TURN, "checks", 1, "params"],
        (
            None,
            None,
            "StringMatching",
            "custom_polite",
            False,
            [
                "text",
                "target_key",
                "keyword",
                "keyword_key",
                "normalization_form",
                "case_sensitive",
                "name",
                "description",
                "enabled",
            ],
        ),
    ),
    (
        "checkspec.yaml",
        CONFIG,
        ["custom_checks", 0],
        (None, None, None, None, False, ["identifier", "name", "description", "params"]),
    ),
    (
        "checkspec.yaml",
        CONFIG,
        ["custom_checks", 0, "params"],
        (
            "type",
            "Check",
            "RegexMatching",
            None,
            False,
            [
                "type",
                "text",
                "target_key",
                "pattern",
                "pattern_key",
                "match_timeout_seconds",
                "name",
                "description",
                "enabled",
            ],
        ),
    ),
]


@pytest.mark.parametrize(("path", "text", "where", "expected"), SHAPES)
def test_the_shape_at_each_place(path: str, text: str, where: list[Any], expected: Any) -> None:
    document = analyze(text, path, WORKSPACE)
    frames = frames_along(document.source.root, where)
    assert len(frames) == len(where) + 1
    assert shown(shape_at(document.kind, frames, WORKSPACE.custom_checks)) == expected


def test_the_fixed_keys_of_files_and_custom_checks_are_documented() -> None:
    from checkspec.server.analysis.schema import summary_of

    config = root_shape(FileKind.CONFIG).fields
    assert (config["concurrency"].type, config["max_file_size"].type) == ("integer", "integer")
    schema = root_shape(FileKind.SCENARIO).fields["$schema"]
    assert (schema.type, schema.description) == (
        "string",
        "The JSON Schema of this file (editors use it).",
    )
    document = analyze(CONFIG, "checkspec.yaml", WORKSPACE)
    frames = frames_along(document.source.root, ["custom_checks", 0, "params"])
    kind = shape_at(document.kind, frames, {}).fields["type"]
    assert (kind.name, kind.type, kind.description) == (
        "type",
        "string",
        "The built-in check this custom check configures.",
    )

    class Documented:
        """First line.
        Second line."""

    assert summary_of(Documented) == "First line."
