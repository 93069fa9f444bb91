"""Which kind of spec file a path is: decided by name, or by a top-level `$schema`.

The kinds themselves are described in the catalog (engine/catalog.py).
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING

from ..catalog import CONFIG_NAMES, FileKind, is_jsonl, kind_from_name, kind_from_schema

if TYPE_CHECKING:
    from pydantic import BaseModel

CONFIG_NAME = CONFIG_NAMES[0]  # the name a new workspace config is given

__all__ = [
    "CONFIG_NAME",
    "CONFIG_NAMES",
    "FileKind",
    "is_config_name",
    "is_json",
    "is_jsonl",
    "kind_from_name",
    "kind_from_schema",
    "root_model",
]


def root_model(kind: FileKind) -> type[BaseModel]:
    """The model a file of this kind follows at its top level (its schema's root)."""
    # Deferred: telling a file's kind by its name must not load the models (start-up time).
    from ..scenarios.scenario import Scenario
    from .datasets import DatasetFile
    from .suite_file import SuiteFile
    from .workspace_config import WorkspaceConfig

    roots: dict[FileKind, type[BaseModel]] = {
        FileKind.SCENARIO: Scenario,
        FileKind.SUITE: SuiteFile,
        FileKind.DATASET: DatasetFile,
        FileKind.CONFIG: WorkspaceConfig,
    }
    return roots[kind]


def is_config_name(path: str | PurePath) -> bool:
    """checkspec.yaml or checkspec.yml."""
    return PurePath(path).name in CONFIG_NAMES


def is_json(path: str | PurePath) -> bool:
    return PurePath(path).suffix in (".json", ".jsonl")
