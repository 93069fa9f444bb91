"""The reference library's module paths, as names for our modules.

Code written for giskard-checks imports from submodules too
(`from giskard.checks.core.extraction import resolve`, `...core.interaction import
Trace`); after renaming the package those paths resolve to the module of ours that
holds the same names. Only paths whose names all exist here are listed.

`checkspec.engine` loads nothing until a name is asked for, so it does not install these
at import: `install_finder()` puts a finder first on `sys.meta_path` that resolves an
alias when it is imported (`install()` registers them all at once).
"""

from __future__ import annotations

import sys
from importlib import import_module
from importlib.machinery import ModuleSpec
from importlib.util import spec_from_loader
from types import ModuleType
from typing import Any

_PACKAGE = __name__.rsplit(".", 1)[0]

# reference path (under the package) -> our module
ALIASES = {
    "core.extraction": "core.jsonpath",
    "core.interaction": "interactions",
    "core.interaction.base": "interactions",
    "core.interaction.interact": "interactions",
    "core.interaction.interaction": "core.trace",
    "core.interaction.trace": "core.trace",
    "core.judge": "judges.backends",
    "core.mixin": "judges.mixins",
    "core.scenario": "scenarios.scenario",
    "core.testcase": "testcase",
    "export.hub": "core.hub_payload",
    "export.junit": "core.junit_xml",
    "testing": "interactions",
    "testing.runner": "testcase",
    "testing.spy": "interactions",
    "utils": "core",
    "utils.normalization": "core.normalization",
    "utils.inference": "core.inference_names",
    "utils.optional_deps": "core.optional_deps",
}


def install() -> None:
    for path, target in ALIASES.items():
        module = import_module(f"{_PACKAGE}.{target}")
        sys.modules.setdefault(f"{_PACKAGE}.{path}", module)
        parent, _, name = f"{_PACKAGE}.{path}".rpartition(".")
        if parent in sys.modules and not hasattr(sys.modules[parent], name):
            setattr(sys.modules[parent], name, module)


def _register_children(name: str) -> None:
    # An alias that is the parent of others (core.interaction -> interactions, utils ->
    # core) is a plain module or another package: its children must be in sys.modules by
    # their full name before the import system looks under the parent's __path__.
    prefix = name + "."
    for path, target in ALIASES.items():
        full = f"{_PACKAGE}.{path}"
        if full.startswith(prefix) and full not in sys.modules:
            sys.modules[full] = import_module(f"{_PACKAGE}.{target}")


class _AliasLoader:
    """Loads an alias as the module it names (the same object, not a copy).

    The import system sets `__spec__` of whatever `create_module` returns to the alias's
    spec; `exec_module`, which runs next, gives the module back its own, so its relative
    imports still resolve from where it lives (Python 3.15 reads only `__spec__`).
    """

    def __init__(self, name: str, module: ModuleType) -> None:
        self.name = name
        self.module = module
        self.own_spec = module.__spec__

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self.own_spec
        _register_children(self.name)


class _AliasFinder:
    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if not name.startswith(_PACKAGE + "."):
            return None
        real = ALIASES.get(name[len(_PACKAGE) + 1 :])
        if real is None:
            return None
        loader: Any = _AliasLoader(name, import_module(f"{_PACKAGE}.{real}"))
        return spec_from_loader(name, loader)


def install_finder() -> None:
    """Resolve the reference paths when first imported; nothing is imported now."""
    if _AliasFinder not in sys.meta_path:
        sys.meta_path.insert(0, _AliasFinder)
