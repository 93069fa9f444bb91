"""giskard-checks' helper for checks that need optional packages (`utils.optional_deps`).

Our checks' packages (textstat, celine-regorus) are dependencies, never optional; the
helper is here for code written against the reference library's module path.
"""

from __future__ import annotations

import importlib
from typing import Any


def require_optional_dependency(module_name: str, *, install_hint: str) -> Any:
    """Import `module_name`, or raise ValueError with `install_hint`."""
    try:
        return importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(install_hint) from err
