"""JSON Schemas (draft 2020-12) for the four file kinds, generated from the models.

Every check's parameters come from its pydantic model and the registry, so a newly
registered check appears in the schemas with no edit here. A field typed with a
family's root (`Check`, `InteractionSpec`, `BaseJudge`) becomes a union over the registered kinds,
written as if/then on `kind` so editors report errors against the right check.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from pydantic.json_schema import models_json_schema

from .core.check import ANY_KIND_MARKER, DEPRECATED_TARGET_ALIASES, Check, KindModel
from .interactions import InteractionSpec
from .scenario import Scenario
from .spec.datasets import DatasetFile
from .spec.workspace import WorkspaceConfig

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_URL = "https://checkspec.dev/schemas"
FILES = ("scenario", "suite", "dataset", "config")
CUSTOM_PATTERN = "^custom_[A-Za-z0-9_]+$"


def _families() -> dict[str, type[KindModel]]:
    from .core.input_generator import InputGenerator
    from .judges.backends import BaseJudge

    return {
        "Check": Check,
        "InteractionSpec": InteractionSpec,
        "BaseJudge": BaseJudge,
        "InputGenerator": InputGenerator,
    }


def _definitions(*roots: type[Any]) -> dict[str, Any]:
    """$defs for the root models plus every registered check and interaction kind."""
    models = [*roots]
    for family in _families().values():
        models.extend(family._registry.values())
    _, top = models_json_schema(
        [(m, "validation") for m in dict.fromkeys(models)], ref_template="#/$defs/{model}"
    )
    defs: dict[str, Any] = top.get("$defs", {})
    names = {m: m.__name__ for m in models}
    for family_name, family in _families().items():
        defs[family_name] = _kind_union(family, names, family is Check)
    for cls in Check._registry.values():
        _add_deprecated_aliases(defs.get(cls.__name__))
    return _replace_markers(defs)


def _kind_union(family: type[KindModel], names: dict[type, str], custom: bool) -> dict[str, Any]:
    kinds = list(family._registry)
    kind_schema: dict[str, Any] = {"enum": kinds}
    if custom:
        kind_schema = {"anyOf": [{"enum": kinds}, {"pattern": CUSTOM_PATTERN}]}
    default = family._default_kind()
    union: dict[str, Any] = {
        "type": "object",
        "properties": {"kind": {**kind_schema, "description": "Which kind this is."}},
        "allOf": [
            {
                "if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
                "then": {"$ref": f"#/$defs/{names[cls]}"},
            }
            for kind, cls in family._registry.items()
        ],
    }
    if default is None:
        union["required"] = ["kind"]
    else:  # e.g. interactions: no kind means `interact`
        union["allOf"].append(
            {
                "if": {"not": {"required": ["kind"]}},
                "then": {"$ref": f"#/$defs/{names[family._registry[default]]}"},
            }
        )
    return union


def _add_deprecated_aliases(schema: dict[str, Any] | None) -> None:
    if not schema or "target_key" not in schema.get("properties", {}):
        return
    for alias in DEPRECATED_TARGET_ALIASES:
        schema["properties"][alias] = {
            "type": "string",
            "deprecated": True,
            "description": "Deprecated name of target_key.",
        }


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


def scenario_schema() -> dict[str, Any]:
    defs = _definitions(Scenario)
    root = copy.deepcopy(defs["Scenario"])
    root["required"] = sorted({*root.get("required", []), "name"})
    return _document("scenario", root, defs)


def suite_schema() -> dict[str, Any]:
    defs = _definitions(Scenario)
    defs["Scenario"]["required"] = sorted({*defs["Scenario"].get("required", []), "name"})
    root = {
        "type": "object",
        "description": "A named list of scenarios sharing a target and tags.",
        "required": ["name", "scenarios"],
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string", "description": "Suite name."},
            "description": {"type": "string"},
            "target": copy.deepcopy(defs["Scenario"]["properties"]["target"]),
            "tags": {"type": "array", "items": {"type": "string"}},
            "scenarios": {"type": "array", "items": {"$ref": "#/$defs/Scenario"}},
        },
    }
    return _document("suite", root, defs)


def dataset_schema() -> dict[str, Any]:
    defs = _definitions(DatasetFile)
    ref_check = defs.get("DatasetCheck", {})
    ref_check["allOf"] = [
        {
            "if": {"properties": {"identifier": {"const": kind}}, "required": ["identifier"]},
            "then": {"properties": {"params": {"$ref": f"#/$defs/{cls.__name__}"}}},
        }
        for kind, cls in Check._registry.items()
    ]
    ref_check.setdefault("properties", {})["identifier"] = {
        "anyOf": [{"enum": list(Check._registry)}, {"pattern": CUSTOM_PATTERN}],
        "description": "A built-in check identifier or a custom_ check of checkspec.yaml.",
    }
    root = copy.deepcopy(defs["DatasetFile"])
    root.pop("title", None)
    return _document("dataset", root, defs)


def config_schema() -> dict[str, Any]:
    defs = _definitions(WorkspaceConfig)
    custom = defs.get("CustomCheck", {})
    params = custom.setdefault("properties", {}).setdefault("params", {})
    params.update(
        {
            "type": "object",
            "required": ["type"],
            "properties": {
                "type": {"enum": list(Check._registry), "description": "The built-in check."}
            },
            "allOf": [
                {
                    "if": {"properties": {"type": {"const": kind}}, "required": ["type"]},
                    "then": {"$ref": f"#/$defs/{cls.__name__}Params"},
                }
                for kind, cls in Check._registry.items()
            ],
        }
    )
    for cls in Check._registry.values():
        # Same parameters, with `type` in place of `kind` (hub custom-check format).
        params_def = copy.deepcopy(defs[cls.__name__])
        params_def["properties"].pop("kind", None)
        params_def["properties"]["type"] = {"const": cls._kind}
        defs[f"{cls.__name__}Params"] = params_def
    root = copy.deepcopy(defs["WorkspaceConfig"])
    root.pop("title", None)
    return _document("config", root, defs)


GENERATORS = {
    "scenario": scenario_schema,
    "suite": suite_schema,
    "dataset": dataset_schema,
    "config": config_schema,
}


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def generate_all() -> dict[str, str]:
    """File name -> schema text, for every file kind."""
    return {f"{kind}.schema.json": render(make()) for kind, make in GENERATORS.items()}


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
