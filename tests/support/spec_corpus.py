"""A corpus of spec files, valid and not: the examples, the conformance corpora (each check
as a scenario, a dataset check and a custom check), every spelling of every field and the
edge cases of each file kind (tests/engine/spec/test_schema_agreement.py runs it)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from checkspec.engine.catalog import fields_of, kind_from_name
from checkspec.engine.core.check import Check
from checkspec.engine.spec.workspace_config import WorkspaceConfig
from tests.support.paths import CORPORA, REPO

CUSTOM = WorkspaceConfig.model_validate(
    {
        "custom_checks": [
            {"identifier": "custom_tone", "params": {"type": "string_matching", "keyword": "hello"}}
        ]
    }
)


# Constraints between two values of one mapping (readability's min_score <= max_score):
# JSON Schema compares a value with constants, never with another value.
BETWEEN_VALUES = {"readability-min-above-max"}


@dataclass(frozen=True)
class Case:
    name: str  # a file name: its kind and JSON vs YAML
    text: str
    origin: str


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _scenario_with(check: Any, name: str = "s") -> dict[str, Any]:
    return {
        "name": name,
        "steps": [{"interacts": [{"inputs": "q", "outputs": "a"}], "checks": [check]}],
    }


def _dataset_with(identifier: Any, params: Any) -> dict[str, Any]:
    return {
        "name": "d",
        "scenarios": [
            {
                "interactions": [
                    {
                        "input": {"messages": [{"role": "user", "content": "hi"}]},
                        "output": {"response": {"role": "assistant", "content": "hello"}},
                        "checks": [{"identifier": identifier, "params": params}],
                    }
                ]
            }
        ],
    }


def _config_with(kind: Any, params: dict[str, Any]) -> dict[str, Any]:
    return {"custom_checks": [{"identifier": "custom_x", "params": {"type": kind, **params}}]}


def _check_forms(check: dict[str, Any], origin: str) -> Iterator[Case]:
    """One check spec as a scenario's check, a dataset check and a custom check."""
    yield Case("c.scenario.json", json.dumps(_scenario_with(check)), origin)
    if isinstance(check, dict):
        params = {k: v for k, v in check.items() if k != "kind"}
        kind = check.get("kind")
        yield Case("c.dataset.json", json.dumps(_dataset_with(kind, params)), origin + " (dataset)")
        yield Case(
            "checkspec.yaml", yaml.safe_dump(_config_with(kind, params)), origin + " (custom)"
        )


def _files() -> Iterator[Case]:
    for path in sorted((REPO / "examples").rglob("*")):
        if path.is_file() and kind_from_name(path.name) is not None:
            yield Case(path.name, path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))


def _conformance() -> Iterator[Case]:
    for case in _lines(CORPORA / "scenarios.jsonl"):
        yield Case("s.scenario.json", json.dumps(case["scenario"]), f"scenarios.jsonl {case['id']}")
    for case in _lines(CORPORA / "checks.jsonl"):
        if case["id"] not in BETWEEN_VALUES:
            yield from _check_forms(case["check"], f"checks.jsonl {case['id']}")


def _sample_checks() -> dict[str, dict[str, Any]]:
    """A valid spec of every registered check, from the conformance corpus."""
    found: dict[str, dict[str, Any]] = {}
    for case in _lines(CORPORA / "checks.jsonl"):
        check = case["check"]
        if case["expected"] != "invalid" and isinstance(check, dict):
            found.setdefault(check["kind"], check)
    return found


def _value_for(check: dict[str, Any], spelling_of: list[str], jsonpath: bool) -> Any:
    for spelling in spelling_of:
        if spelling in check:
            return check[spelling]
    return "trace.last.outputs" if jsonpath else None


def _spelling_variants() -> Iterator[Case]:
    """Every spelling of every field of every check: alone (accepted) and two at once."""
    samples = _sample_checks()
    for kind, cls in Check.registry().items():
        base = samples.get(kind)
        if base is None:
            continue
        for spec in fields_of(cls).values():
            if len(spec.spellings) == 1:
                continue
            value = _value_for(base, list(spec.spellings), spec.jsonpath)
            if value is None:
                continue
            bare = {k: v for k, v in base.items() if k not in spec.spellings}
            for spelling in spec.spellings:
                yield from _check_forms({**bare, spelling: value}, f"{kind}.{spelling}")
            first, second = spec.spellings[0], spec.spellings[-1]
            yield from _check_forms(
                {**bare, first: value, second: value}, f"{kind}.{first}+{second}"
            )


def _edge_cases() -> Iterator[Case]:
    ok = _scenario_with({"kind": "string_matching", "keyword": "a"})
    dataset = _dataset_with("string_matching", {"keyword": "hello"})
    record = dataset["scenarios"][0]

    def scenario(origin: str, data: Any) -> Case:
        return Case("e.scenario.yaml", yaml.safe_dump(data), origin)

    def suite(origin: str, data: Any) -> Case:
        return Case("e.suite.yaml", yaml.safe_dump(data), origin)

    def data_file(origin: str, data: Any) -> Case:
        return Case("e.dataset.yaml", yaml.safe_dump(data), origin)

    def config(origin: str, data: Any) -> Case:
        return Case("checkspec.yaml", yaml.safe_dump(data), origin)

    yield scenario("scenario", ok)
    yield scenario("scenario without name", {k: v for k, v in ok.items() if k != "name"})
    yield scenario("scenario without steps", {"name": "n"})
    yield scenario("scenario with no steps", {"name": "n", "steps": []})
    yield scenario("scenario with $schema", {"$schema": "x/scenario.schema.json", **ok})
    yield scenario("unknown scenario key", {**ok, "stepz": []})
    yield scenario("scenario name not a string", {**ok, "name": 3})
    yield scenario("scenario with tags", {**ok, "tags": ["a", "b"]})
    yield scenario("scenario with bad tags", {**ok, "tags": "a"})
    yield scenario("scenario with a tag not a string", {**ok, "tags": [1]})
    yield scenario("scenario target", {**ok, "target": "python:agent:answer"})
    yield scenario("scenario http target", {**ok, "target": "https://x.example/chat"})
    yield scenario("scenario bad target", {**ok, "target": "agent.answer"})
    yield scenario("scenario null target", {**ok, "target": None})
    for target in ("python:a:b:c", "python::b", "python:a.b:", "https://", "http://x", "ftp://x"):
        yield scenario(f"scenario target {target}", {**ok, "target": target})
    yield scenario("scenario description", {**ok, "description": "d"})
    yield scenario("scenario annotations", {**ok, "annotations": {"a": 1}})
    yield scenario("scenario annotations not a mapping", {**ok, "annotations": [1]})
    yield scenario("scenario not a mapping", ["a"])
    yield scenario("steps not a list", {"name": "n", "steps": {"a": 1}})
    yield scenario("step not a mapping", {"name": "n", "steps": [1]})
    yield scenario("step unknown key", {"name": "n", "steps": [{"interacts": [], "chex": []}]})
    yield scenario("step without checks", {"name": "n", "steps": [{"interacts": []}]})
    yield scenario("empty step", {"name": "n", "steps": [{}]})
    step = ok["steps"][0]
    interaction = {"kind": "interact", "inputs": "q", "outputs": "a"}
    yield scenario("interaction with kind", {**ok, "steps": [{**step, "interacts": [interaction]}]})
    bad_kind = {**interaction, "kind": "chat"}
    yield scenario("interaction unknown kind", {**ok, "steps": [{**step, "interacts": [bad_kind]}]})
    extra = {"inputs": "q", "outputz": "a"}
    yield scenario("interaction unknown key", {**ok, "steps": [{**step, "interacts": [extra]}]})
    yield scenario("interaction not a mapping", {**ok, "steps": [{**step, "interacts": ["q"]}]})
    simulated = {"inputs": {"kind": "user_simulator", "persona": "a tester"}}
    yield scenario("user simulator", {**ok, "steps": [{**step, "interacts": [simulated]}]})
    for check in (
        {"keyword": "a"},
        {"kind": "strng_matching", "keyword": "a"},
        {"kind": "string_matching"},
        {"kind": "string_matching", "keyword": "a", "extra": 1},
        {"kind": "string_matching", "keyword": 3},
        {"kind": "custom_tone", "keyword": "a"},
        {"kind": "custom_tone"},
        {"kind": "all_of", "checks": []},
        {"kind": "all_of", "checks": [{"kind": "equals", "expected_value": 1}]},
        {"kind": "not", "check": {"kind": "nope"}},
        {"kind": "not", "check": {"kind": "string_matching", "keyword": "a", "key": "trace.last"}},
        {"kind": 3},
        "string_matching",
        {"kind": "regex_matching", "pattern": "a", "match_timeout_seconds": 0},
        {"kind": "readability", "metric": "nope"},
    ):
        yield from _check_forms(check, f"check {json.dumps(check)}")

    yield suite("suite", {"name": "s", "scenarios": [ok]})
    yield suite(
        "suite with everything",
        {"name": "s", "description": "d", "tags": ["t"], "target": "python:a:b", "scenarios": [ok]},
    )
    yield suite("suite without name", {"scenarios": [ok]})
    yield suite("suite without scenarios", {"name": "s"})
    yield suite("suite with no scenarios", {"name": "s", "scenarios": []})
    yield suite("suite unknown key", {"name": "s", "scenarios": [ok], "x": 1})
    yield suite("suite scenario without name", {"name": "s", "scenarios": [{"steps": []}]})
    yield suite("suite bad target", {"name": "s", "target": "x", "scenarios": [ok]})
    yield suite("suite scenarios not a list", {"name": "s", "scenarios": {"a": ok}})
    yield suite(
        "suite with $schema", {"$schema": "suite.schema.json", "name": "s", "scenarios": []}
    )

    yield data_file("dataset", dataset)
    yield data_file("dataset without name", {"scenarios": [record]})
    yield data_file("dataset without scenarios", {"name": "d"})
    yield data_file("dataset with no scenarios", {"name": "d", "scenarios": []})
    yield data_file("dataset unknown key", {**dataset, "x": 1})
    yield data_file(
        "record with no interactions", {"name": "d", "scenarios": [{"interactions": []}]}
    )
    yield data_file("record without interactions", {"name": "d", "scenarios": [{"tags": ["a"]}]})
    yield data_file("record unknown key", {"name": "d", "scenarios": [{**record, "x": 1}]})
    turn = record["interactions"][0]
    no_input = {k: v for k, v in turn.items() if k != "input"}
    yield data_file(
        "interaction without input", {"name": "d", "scenarios": [{"interactions": [no_input]}]}
    )
    yield data_file(
        "interaction unknown key",
        {"name": "d", "scenarios": [{"interactions": [{**turn, "x": 1}]}]},
    )
    no_output = {k: v for k, v in turn.items() if k != "output"}
    yield data_file(
        "interaction without output", {"name": "d", "scenarios": [{"interactions": [no_output]}]}
    )
    kind_form = {**turn, "checks": [{"kind": "string_matching", "keyword": "hello"}]}
    yield data_file(
        "dataset check as kind", {"name": "d", "scenarios": [{"interactions": [kind_form]}]}
    )
    named = {
        **turn,
        "checks": [{"identifier": "string_matching", "name": "n", "params": {"keyword": "a"}}],
    }
    yield data_file(
        "dataset check with a name", {"name": "d", "scenarios": [{"interactions": [named]}]}
    )
    no_params = {**turn, "checks": [{"identifier": "json_valid"}]}
    yield data_file(
        "dataset check without params", {"name": "d", "scenarios": [{"interactions": [no_params]}]}
    )
    custom = {**turn, "checks": [{"identifier": "custom_tone", "params": {"keyword": "hello"}}]}
    yield data_file(
        "dataset custom check", {"name": "d", "scenarios": [{"interactions": [custom]}]}
    )
    yield data_file(
        "dataset schemas",
        {**dataset, "input_schema": {"type": "object"}, "output_schema": {"type": "object"}},
    )
    yield data_file("dataset target", {**dataset, "target": "python:a:b"})
    yield data_file("dataset bad target", {**dataset, "target": "a"})
    yield data_file("dataset tags", {**dataset, "tags": ["a"]})
    yield data_file(
        "record fields",
        {
            "name": "d",
            "scenarios": [
                {**record, "name": "n", "description": "d", "tags": ["x"], "annotations": {"a": 1}}
            ],
        },
    )
    yield Case("e.dataset.jsonl", json.dumps(record) + "\n" + json.dumps(record) + "\n", "jsonl")
    yield Case("e.dataset.jsonl", json.dumps({"interactions": []}) + "\n", "jsonl no interactions")
    yield Case("e.dataset.jsonl", json.dumps({**record, "x": 1}) + "\n", "jsonl unknown key")

    yield config("config", {"model": "openai/gpt-4o-mini", "concurrency": 4})
    yield config("empty config", {})
    yield config("config unknown key", {"modle": "x"})
    yield config("config bad concurrency", {"concurrency": 0})
    yield config("config bad jobs", {"jobs": -1})
    yield config("config timeouts", {"target_timeout": 1.5, "scenario_timeout": 10})
    yield config("config bad timeout", {"target_timeout": 0})
    yield config(
        "config limits",
        {"rpm": 10, "tpm": 1000, "max_parallel_requests": 2, "models": {"openai/x": {"rpm": 5}}},
    )
    yield config("config bad limits", {"models": {"openai/x": {"rpm": 0}}})
    yield config("config cache", {"cache": False, "cache_dir": "c", "cache_max_mb": 1})
    yield config("config target", {"target": "python:a:b"})
    yield config("config bad target", {"target": "a"})
    yield config(
        "config custom without type", {"custom_checks": [{"identifier": "custom_a", "params": {}}]}
    )
    yield config(
        "config custom bad identifier",
        {"custom_checks": [{"identifier": "a", "params": {"type": "equals", "expected_value": 1}}]},
    )
    yield config(
        "config custom unknown type",
        {"custom_checks": [{"identifier": "custom_a", "params": {"type": "nope"}}]},
    )
    yield config("config with $schema", {"$schema": "config.schema.json"})


def corpus() -> list[Case]:
    return [*_files(), *_conformance(), *_spelling_variants(), *_edge_cases()]


CORPUS = corpus()
