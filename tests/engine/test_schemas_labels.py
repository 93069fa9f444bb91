"""`expect:` in the committed JSON Schemas (issue 40 item 1): on checks that call a model
(judges, embedding checks, checks holding checks), nowhere else, in every file kind."""

from __future__ import annotations

import json

import yaml
from jsonschema import Draft202012Validator

from checkspec.engine.catalog import fields_of
from checkspec.engine.core.check import Check
from tests.support.paths import REPO


def validator(kind: str) -> Draft202012Validator:
    schema = json.loads((REPO / "schemas" / f"{kind}.schema.json").read_text())
    return Draft202012Validator(schema)


def test_the_catalog_offers_expect_exactly_on_checks_that_may_call_a_model() -> None:
    for kind, cls in Check.registry().items():
        assert ("expect" in fields_of(cls)) == cls.may_call_model(), kind
    spec = fields_of(Check.kind_class("llm_judge"))["expect"]
    assert "checkspec calibrate" in spec.description


def test_scenario_schema_takes_a_label_on_a_judge_and_refuses_one_elsewhere() -> None:
    def errors(check: str) -> list[str]:
        text = f"name: s\nsteps:\n  - interacts: [{{inputs: hi, outputs: yo}}]\n    checks:\n      - {check}\n"
        return [e.message for e in validator("scenario").iter_errors(yaml.safe_load(text))]

    assert errors("{kind: llm_judge, prompt: p, expect: fail}") == []
    assert errors("{kind: not, check: {kind: toxicity}, expect: pass}") == []
    assert errors("{kind: llm_judge, prompt: p, expect: maybe}")
    assert errors("{kind: string_matching, keyword: k, expect: pass}")


def test_dataset_schema_takes_a_label_beside_identifier_on_judges_only() -> None:
    def errors(check: str) -> list[str]:
        text = f"name: d\nscenarios:\n  - interactions:\n      - input: {{messages: [{{role: user, content: hi}}]}}\n        checks:\n          - {check}\n"
        return [e.message for e in validator("dataset").iter_errors(yaml.safe_load(text))]

    assert errors("{identifier: hub_correctness, expect: fail, params: {reference: r}}") == []
    assert errors("{identifier: json_valid, expect: pass}")
    assert errors("{identifier: hub_correctness, expect: yes, params: {reference: r}}")


def test_a_custom_check_of_checkspec_yaml_takes_no_label() -> None:
    text = "custom_checks:\n  - identifier: custom_x\n    params: {type: llm_judge, prompt: p, expect: pass}\n"
    assert list(validator("config").iter_errors(yaml.safe_load(text)))
