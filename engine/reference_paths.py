"""The reference library's module paths, as names for our modules.

Code written for giskard-checks imports from submodules too
(`from giskard.checks.core.extraction import resolve`, `...core.interaction import
Trace`); after renaming the package those paths resolve to the module of ours that
holds the same names. Only paths whose names all exist here are listed.
"""

from __future__ import annotations

import sys
from importlib import import_module

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
    "core.scenario": "scenario",
    "core.testcase": "testcase",
    "testing": "testcase",
    "testing.runner": "testcase",
    "testing.spy": "interactions",
    "utils": "core",
    "utils.normalization": "core.normalization",
    "utils.inference": "core.inference",
}


def install() -> None:
    for path, target in ALIASES.items():
        module = import_module(f"{_PACKAGE}.{target}")
        sys.modules.setdefault(f"{_PACKAGE}.{path}", module)
        parent, _, name = f"{_PACKAGE}.{path}".rpartition(".")
        if parent in sys.modules and not hasattr(sys.modules[parent], name):
            setattr(sys.modules[parent], name, module)
