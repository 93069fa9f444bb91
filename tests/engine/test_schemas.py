"""Committed JSON Schemas match the models, and work for third parties."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from checkspec.engine.cli.main import main
from checkspec.engine.schema_gen import generate_all
from tests.support.paths import REPO as _REPO

REPO = _REPO
SCHEMAS = REPO / "schemas"
EXAMPLES = REPO / "examples"


def validator(kind: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / f"{kind}.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def test_committed_schemas_are_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["schema", "--check", "--out", str(SCHEMAS)])
    assert code == 0, capsys.readouterr().err


def test_schema_check_detects_a_stale_file(tmp_path: Path) -> None:
    for name, text in generate_all().items():
        (tmp_path / name).write_text(text)
    (tmp_path / "scenario.schema.json").write_text("{}")
    assert main(["schema", "--check", "--out", str(tmp_path)]) == 1


@pytest.mark.parametrize(
    ("kind", "path"),
    [
        ("scenario", "refund.scenario.yaml"),
        ("scenario", "tone.scenario.yaml"),
        ("suite", "support.suite.yaml"),
        ("dataset", "faq.dataset.yaml"),
        ("config", "checkspec.yaml"),
    ],
)
def test_examples_validate_with_plain_jsonschema(kind: str, path: str) -> None:
    data = yaml.safe_load((EXAMPLES / path).read_text())
    errors = list(validator(kind).iter_errors(data))
    assert errors == [], [e.message for e in errors]


@pytest.mark.parametrize(
    ("kind", "data", "needle"),
    [
        ("scenario", {"name": "x", "steps": [{"checks": [{"kind": "nope"}]}]}, "nope"),
        (
            "scenario",
            {"name": "x", "steps": [{"checks": [{"kind": "string_matching", "keywrd": "a"}]}]},
            "keywrd",
        ),
        (
            "scenario",
            {"name": "x", "steps": [{"checks": [{"kind": "equals", "target_key": "last"}]}]},
            "last",
        ),
        ("scenario", {"name": "x", "steps": [{"checks": [{"kind": "rego_policy"}]}]}, "policy"),
        ("suite", {"name": "s"}, "scenarios"),
        (
            "dataset",
            {
                "name": "d",
                "scenarios": [
                    {
                        "interactions": [
                            {
                                "input": {},
                                "checks": [
                                    {"identifier": "string_matching", "params": {"keywrd": "x"}}
                                ],
                            }
                        ]
                    }
                ],
            },
            "keywrd",
        ),
        (
            "config",
            {"custom_checks": [{"identifier": "nocustom", "params": {"type": "equals"}}]},
            "nocustom",
        ),
    ],
)
def test_wrong_files_are_rejected(kind: str, data: dict, needle: str) -> None:
    errors = list(validator(kind).iter_errors(data))
    assert errors, "expected a schema error"
    assert any(needle in (e.message + json.dumps(e.instance)) for e in _leaves(errors))


def _leaves(errors):
    for error in errors:
        yield error
        yield from _leaves(error.context or [])


def test_custom_identifiers_are_allowed_by_pattern() -> None:
    data = {"name": "x", "steps": [{"checks": [{"kind": "custom_polite"}]}]}
    assert list(validator("scenario").iter_errors(data)) == []


def test_schemas_ship_in_the_package() -> None:
    from importlib.resources import files

    names = {p.name for p in files("checkspec.schemas").iterdir()}
    assert {f"{k}.schema.json" for k in ("scenario", "suite", "dataset", "config")} <= names


def test_the_reference_api_fields_are_in_the_scenario_schema() -> None:
    scenario = {
        "name": "refund",
        "multiple_runs": 2,
        "steps": [
            {
                "interacts": [
                    {"inputs": {"kind": "user_simulator", "persona": "frustrated_customer"}},
                    {"inputs": {"question": "a literal dict input"}, "outputs": "ok"},
                ],
                "checks": [
                    {"kind": "conformity", "rule": "Be polite.", "judge": "openai/gpt-4o-mini"},
                    {"kind": "groundedness", "judge": {"kind": "llm", "generator": {"model": "m"}}},
                ],
            }
        ],
    }
    assert [e.message for e in validator("scenario").iter_errors(scenario)] == []
    scenario["steps"][0]["interacts"][0]["inputs"]["persona"] = ""  # minLength 1
    scenario["steps"][0]["checks"][1]["judge"]["kind"] = "oracle"
    errors = list(validator("scenario").iter_errors(scenario))
    where = sorted("/".join(str(p) for p in e.absolute_path) for e in errors)
    assert where == ["steps/0/checks/1/judge", "steps/0/interacts/0/inputs"], where
