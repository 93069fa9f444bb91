"""`package.module:attribute` references, resolved only when something runs; and the
engine's own packages whose names load on first use (`lazy_names`)."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

# Folders a running scenario resolves references from (its spec file's folder, then the
# workspace root): set by Scenario.run for the checks it runs, e.g. `fn: module:func`.
SEARCH_PATHS: ContextVar[tuple[str, ...]] = ContextVar("checkspec_search_paths", default=())

_REFERENCE = r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$"


def validate_reference(reference: str) -> str:
    """Check the shape of `module:attr` without importing anything."""
    if not re.match(_REFERENCE, reference):  # re's cache: compiled at the first check
        raise ValueError(
            f"expected an import reference 'package.module:function', got {reference!r}"
        )
    return reference


def import_reference(reference: str, search_paths: Iterable[str | Path] = ()) -> Any:
    """Import `module` and return `attr` (dotted). Extra folders are tried first."""
    validate_reference(reference)
    module_name, attr_path = reference.split(":", 1)
    added = [str(p) for p in search_paths if str(p) not in sys.path]
    sys.path[:0] = added
    try:
        module = importlib.import_module(module_name)
    finally:
        for path in added:
            if path in sys.path:
                sys.path.remove(path)
    value: Any = module
    for part in attr_path.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise ImportError(f"module {module_name!r} has no attribute {attr_path!r}") from None
    return value


def lazy_names(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A package's module `__getattr__`: each name of `homes` is imported from its module
    (relative to `package`) when first asked for, then kept in the package."""

    def load(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return load
