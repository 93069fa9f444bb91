"""Where the tests find the repository's files, and the conformance corpora."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
DATA = TESTS / "data"
CORPORA = DATA / "conformance"
EXAMPLES = REPO / "examples"


def read_cases(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def conformance_cases(name: str) -> list[dict[str, Any]]:
    """The repository's corpus (tests/data/conformance): tests read nothing from outside
    the repository (it holds every case of the project's shared corpus, and more)."""
    cases = read_cases(CORPORA / name)
    if not cases:
        raise FileNotFoundError(name)
    return cases


def load_script(path: Path, name: str) -> ModuleType:
    """A script of the repository (tools/, bench/: not packages) imported from its path as
    module `name`, kept in sys.modules (dataclasses look their module up there)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
