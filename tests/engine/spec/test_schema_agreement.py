"""The committed JSON Schemas and the validator (`analyze`, what `checkspec validate` runs)
accept the same files.

Anyone using the schemas without our server (yaml-language-server in VS Code, Neovim or
Helix, plain jsonschema in CI) must get neither false errors on files we accept nor a
silent pass on files we reject. The corpus: the examples, the conformance corpora (each
check as a scenario file, as a dataset check and as a custom check of checkspec.yaml),
and variants generated from the catalog with every spelling of every field and the edge
cases of each file kind. Problems no schema can express are left out: regex, Rego,
Jinja and JSONPath syntax, unknown custom checks, values against a dataset's own schemas.
"""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from jsonschema import Draft202012Validator

from checkspec.engine.catalog import FILE_KINDS, FileKind, kind_from_name
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Severity
from checkspec.engine.spec.workspace import Workspace
from tests.support.paths import REPO
from tests.support.spec_corpus import CORPUS, CUSTOM, Case, _sample_checks
from tests.support.unmeasured import unmeasured

SCHEMAS = REPO / "schemas"

# Problems only the validator can see: the syntax inside a value, what a workspace
# defines, a dataset's own input/output schemas.
BEYOND_SCHEMAS = {
    "regex-syntax",
    "rego-syntax",
    "template-syntax",
    "bad-jsonpath",
    "unknown-custom-check",
    "schema-mismatch",
    "invalid-schema",
}


def _validators() -> dict[FileKind, Draft202012Validator]:
    found = {}
    for spec in FILE_KINDS:
        schema = json.loads((SCHEMAS / spec.schema_file).read_text(encoding="utf-8"))
        found[spec.kind] = Draft202012Validator(schema)
    return found


VALIDATORS = _validators()


def schema_errors(case: Case) -> list[str]:
    kind = kind_from_name(case.name)
    assert kind is not None
    validator = VALIDATORS[kind]
    if case.name.endswith(".jsonl"):  # one scenario record a line
        record = {"$ref": "#/$defs/DatasetScenario", "$defs": validator.schema["$defs"]}
        one = Draft202012Validator(record)
        lines = [json.loads(line) for line in case.text.splitlines() if line.strip()]
        return [e.message for data in lines for e in one.iter_errors(data)]
    data = yaml.safe_load(case.text)
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(data)
    ]


def validator_errors(case: Case) -> list[str]:
    document = analyze(case.text, case.name, Workspace(config=CUSTOM))
    return [
        f"{p.code}: {p.message}"
        for p in document.every_problem()
        if p.severity is Severity.ERROR and p.code not in BEYOND_SCHEMAS
    ]


def _beyond_schemas(case: Case) -> bool:
    document = analyze(case.text, case.name, Workspace(config=CUSTOM))
    return any(p.code in BEYOND_SCHEMAS for p in document.every_problem())


# The corpus -----------------------------------------------------------------------------


def test_the_corpus_is_big_enough() -> None:
    assert len(CORPUS) >= 200
    kinds = {kind_from_name(c.name) for c in CORPUS}
    assert kinds == set(FileKind)


def test_schemas_and_validator_accept_the_same_files() -> None:
    disagreements = []
    with unmeasured():  # jsonschema and PyYAML: two thirds of the test's time, traced
        by_schemas = [schema_errors(case) for case in CORPUS]
    for case, by_schema in zip(CORPUS, by_schemas, strict=True):
        by_validator = validator_errors(case)
        if bool(by_schema) != bool(by_validator) and not (by_schema and _beyond_schemas(case)):
            disagreements.append(
                f"{case.origin} [{case.name}]: schema {by_schema[:2]} / validator {by_validator[:2]}"
            )
    assert not disagreements, f"{len(disagreements)} of {len(CORPUS)}:\n" + "\n".join(disagreements)


@pytest.mark.parametrize("spelling", ["key", "text_key"])
def test_deprecated_spellings_are_in_the_schema_marked_deprecated(spelling: str) -> None:
    schema = VALIDATORS[FileKind.SCENARIO].schema
    prop = schema["$defs"]["StringMatching"]["properties"][spelling]
    assert prop["deprecated"] is True
    assert "target_key" in prop["deprecationMessage"]


def test_a_scenario_copy_is_not_shared_with_the_corpus() -> None:
    # The generated variants are independent dicts (a mutation in one never leaks).
    first = _sample_checks()
    second = copy.deepcopy(first)
    assert first == second
