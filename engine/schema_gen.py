"""JSON Schemas (draft 2020-12) for the file kinds of the catalog, generated from the models.

Each kind's root model comes from the catalog (engine/catalog.py), and so does every
spelling a field may be written under (aliases, deprecated names marked `deprecated`).
Every check's parameters come from its pydantic model and the registry, so a newly
registered check appears in the schemas with no edit here. A field typed with a
family's root (`Check`, `InteractionSpec`, `BaseJudge`) becomes a union over the registered kinds,
written as if/then on `kind` so editors report errors against the right check.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from .catalog import FILE_KINDS, FieldSpec, FileKind, editor_catalog, exactly_one_of, fields_of
from .core.check import ANY_KIND_MARKER, Check, KindModel
from .core.input_generator import InputGenerator
from .interactions import InteractionSpec
from .judges.backends import BaseJudge
from .spec.kinds import root_model

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_URL = "https://checkspec.dev/schemas"
CUSTOM_PATTERN = "^custom_[A-Za-z0-9_]+$"


def _families() -> dict[str, type[KindModel]]:
    return {
        "Check": Check,
        "InteractionSpec": InteractionSpec,
        "BaseJudge": BaseJudge,
        "InputGenerator": InputGenerator,
    }


def _definitions(*roots: type[BaseModel]) -> dict[str, Any]:
    """$defs for the root models plus every registered check and interaction kind."""
    models: list[type[BaseModel]] = [*roots]
    for family in _families().values():
        models.extend(family.registry().values())
    _, top = models_json_schema(
        [(m, "validation") for m in dict.fromkeys(models)], ref_template="#/$defs/{model}"
    )
    defs: dict[str, Any] = top.get("$defs", {})
    names = {m: m.__name__ for m in models}
    for family_name, family in _families().items():
        defs[family_name] = _kind_union(family, names, family is Check)
    for model in _models_under(models):
        if model.__name__ in defs:
            _add_spellings(defs[model.__name__], model)
    for model in Check.registry().values():
        if "expect" not in fields_of(model):  # a label only where the catalog offers one
            defs.get(model.__name__, {}).get("properties", {}).pop("expect", None)
    return _replace_markers(defs)


def _models_under(models: list[type[BaseModel]]) -> list[type[BaseModel]]:
    """The models and every model their fields hold (nested, in lists or unions)."""
    seen: dict[type[BaseModel], None] = {}
    todo = list(models)
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen[model] = None
        for info in model.model_fields.values():
            todo.extend(_models_in(info.annotation))
    return list(seen)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]


def _kind_union(family: type[KindModel], names: dict[type, str], custom: bool) -> dict[str, Any]:
    registry = family.registry()
    kinds = list(registry)
    kind_schema: dict[str, Any] = {"enum": kinds}
    if custom:
        kind_schema = {"type": "string", "anyOf": [{"enum": kinds}, {"pattern": CUSTOM_PATTERN}]}
    default = family.default_kind()
    union: dict[str, Any] = {
        "type": "object",
        "properties": {"kind": {**kind_schema, "description": "Which kind this is."}},
        "allOf": [
            {
                "if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
                "then": {"$ref": f"#/$defs/{names[cls]}"},
            }
            for kind, cls in registry.items()
        ],
    }
    if default is None:
        union["required"] = ["kind"]
    else:  # e.g. interactions: no kind means `interact`
        union["allOf"].append(
            {
                "if": {"not": {"required": ["kind"]}},
                "then": {"$ref": f"#/$defs/{names[registry[default]]}"},
            }
        )
    return union


def _add_spellings(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """Every key the validator accepts for a field, from the catalog: aliases as the field
    itself, deprecated names marked so (with the message yaml-language-server shows), and
    never two spellings of one field at once (the validator rejects that too)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for spec in fields_of(model).values():
        prop = properties.get(spec.name)
        if prop is None or len(spec.spellings) == 1:
            continue
        for alias in spec.aliases:
            properties.setdefault(alias, copy.deepcopy(prop))
        for old in spec.deprecated:
            message = spec.deprecation_message(old) + " (rename it)"
            properties[old] = {
                **copy.deepcopy(prop),
                "deprecated": True,
                "deprecationMessage": message,
                "description": message,
            }
        _one_spelling(schema, spec)
    for first, second in exactly_one_of(model):
        schema.setdefault("allOf", []).append(
            {"oneOf": [{"required": [first]}, {"required": [second]}]}
        )


def _one_spelling(schema: dict[str, Any], spec: FieldSpec) -> None:
    rules: list[dict[str, Any]] = schema.setdefault("allOf", [])
    spellings = spec.spellings
    pairs = [[a, b] for i, a in enumerate(spellings) for b in spellings[i + 1 :]]
    rules.append({"not": {"anyOf": [{"required": pair} for pair in pairs]}})
    required = schema.get("required", [])
    if spec.name in required:
        required.remove(spec.name)
        rules.append({"anyOf": [{"required": [s]} for s in spellings]})


def _replace_markers(value: Any) -> Any:
    if isinstance(value, dict):
        if ANY_KIND_MARKER in value:
            return {"$ref": f"#/$defs/{value[ANY_KIND_MARKER]}"}
        return {k: _replace_markers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_markers(v) for v in value]
    return value


def _document(kind: str, root: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    schema = {
        "$schema": DRAFT,
        "$id": f"{BASE_URL}/{kind}.schema.json",
        "title": f"checkspec {kind} file",
        **root,
        "$defs": defs,
    }
    schema.setdefault("properties", {})["$schema"] = {
        "type": "string",
        "description": "The JSON Schema of this file (also tells its kind).",
    }
    return schema


def file_schema(kind: FileKind) -> dict[str, Any]:
    """The schema of one file kind: its root model (from the catalog) and every model under it."""
    spec = next(s for s in FILE_KINDS if s.kind is kind)
    model = root_model(spec.kind)
    defs = _definitions(model)
    if "Scenario" in defs:  # a scenario in a file needs a name (the analysis says so too)
        defs["Scenario"]["required"] = sorted({*defs["Scenario"].get("required", []), "name"})
    if kind is FileKind.DATASET:
        _dataset_checks(defs)
    elif kind is FileKind.CONFIG:
        _custom_check_params(defs)
    root = copy.deepcopy(defs[model.__name__])
    root.pop("title", None)
    root["description"] = spec.description
    return _document(kind.value, root, defs)


def _dataset_checks(defs: dict[str, Any]) -> None:
    """`{identifier, params}`: the identifier picks the schema of params."""
    registry = Check.registry()
    ref_check = defs["DatasetCheck"]
    ref_check["allOf"] = [
        {
            "if": {"properties": {"identifier": {"const": kind}}, "required": ["identifier"]},
            "then": {
                "properties": {"params": {"$ref": f"#/$defs/{cls.__name__}"}},
                # a person's label (`expect:`) only on a check that may call a model
                **({} if "expect" in fields_of(cls) else {"not": {"required": ["expect"]}}),
            },
        }
        for kind, cls in registry.items()
    ]
    ref_check.setdefault("properties", {})["identifier"] = {
        "type": "string",
        "anyOf": [{"enum": list(registry)}, {"pattern": CUSTOM_PATTERN}],
        "description": "A built-in check identifier or a custom_ check of checkspec.yaml.",
    }
    # A dataset check may also be written as in a scenario, `{kind: ...}`.
    interaction = defs["DatasetInteraction"]["properties"]["checks"]
    interaction["items"] = {
        "if": {"type": "object", "required": ["kind"]},
        "then": {"$ref": "#/$defs/Check"},
        "else": {"$ref": "#/$defs/DatasetCheck"},
    }


def _custom_check_params(defs: dict[str, Any]) -> None:
    """A custom check's params: `type` (a built-in check) and that check's parameters."""
    registry = Check.registry()
    custom = defs["CustomCheck"]
    params = custom.setdefault("properties", {}).setdefault("params", {})
    params.update(
        {
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"enum": list(registry), "description": "The built-in check."}},
            "allOf": [
                {
                    "if": {"properties": {"type": {"const": kind}}, "required": ["type"]},
                    "then": {"$ref": f"#/$defs/{cls.__name__}Params"},
                }
                for kind, cls in registry.items()
            ],
        }
    )
    for kind, cls in registry.items():
        # Same parameters, with `type` in place of `kind` (hub custom-check format).
        params_def = copy.deepcopy(defs[cls.__name__])
        params_def["properties"].pop("kind", None)
        params_def["properties"].pop("expect", None)  # a label belongs to a scenario's check
        params_def["properties"]["type"] = {"const": kind}
        defs[f"{cls.__name__}Params"] = params_def


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


CATALOG_FILE = "catalog.json"  # the editor's view of the catalog (vscode-extension reads it)


SCHEMASTORE_FILE = "schemastore-catalog.json"  # our entries for SchemaStore's catalog


def schemastore_catalog() -> dict[str, Any]:
    """SchemaStore's catalog format (https://www.schemastore.org/json/): one entry a file
    kind, its `fileMatch` the kind's own name patterns, its `url` the schema's stable
    `$id`. Editors that read SchemaStore (yaml-language-server, VS Code's JSON support)
    then validate and complete a `*.scenario.yaml` with no modeline. The `schemas` entries
    are what a pull request to SchemaStore adds."""
    return {
        "$schema": "https://json.schemastore.org/schema-catalog.json",
        "version": 1.0,
        "schemas": [
            {
                "name": f"checkspec {spec.title}",
                "description": spec.description,
                "fileMatch": list(spec.patterns),
                "url": f"{BASE_URL}/{spec.schema_file}",
            }
            for spec in FILE_KINDS
        ],
    }


def generate_all() -> dict[str, str]:
    """File name -> text: the schema of every file kind, the editor catalog and the
    SchemaStore entries."""
    found = {spec.schema_file: render(file_schema(spec.kind)) for spec in FILE_KINDS}
    found[CATALOG_FILE] = render(editor_catalog())
    found[SCHEMASTORE_FILE] = render(schemastore_catalog())
    return found


def write_all(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in generate_all().items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def stale(folder: Path) -> list[str]:
    """Names of schema files that differ from what would be generated now."""
    return [
        name
        for name, text in generate_all().items()
        if not (folder / name).is_file() or (folder / name).read_text(encoding="utf-8") != text
    ]
