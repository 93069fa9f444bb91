"""Which kind of spec file a path is: decided by name, or by a top-level `$schema`."""

from __future__ import annotations

from enum import StrEnum
from pathlib import PurePath
from typing import Any


class FileKind(StrEnum):
    SCENARIO = "scenario"
    SUITE = "suite"
    DATASET = "dataset"
    CONFIG = "config"


CONFIG_NAME = "checkspec.yaml"
_EXTENSIONS = {
    FileKind.SCENARIO: (".yaml", ".yml", ".json"),
    FileKind.SUITE: (".yaml", ".yml", ".json"),
    FileKind.DATASET: (".yaml", ".yml", ".json", ".jsonl"),
}


def kind_from_name(path: str | PurePath) -> FileKind | None:
    name = PurePath(path).name
    if name in (CONFIG_NAME, "checkspec.yml"):
        return FileKind.CONFIG
    for kind, extensions in _EXTENSIONS.items():
        if any(name.endswith(f".{kind.value}{ext}") for ext in extensions):
            return kind
    return None


def kind_from_schema(value: Any) -> FileKind | None:
    """`$schema: .../scenario.schema.json` (any URL or path ending like that)."""
    if not isinstance(value, str):
        return None
    for kind in FileKind:
        if value.rstrip("/").endswith(f"{kind.value}.schema.json"):
            return kind
    return None


def is_json(path: str | PurePath) -> bool:
    return PurePath(path).suffix in (".json", ".jsonl")


def is_jsonl(path: str | PurePath) -> bool:
    return PurePath(path).suffix == ".jsonl"
