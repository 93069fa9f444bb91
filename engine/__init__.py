"""checkspec.engine: the check library (checks, scenarios, test cases, runners).

Its names (`from checkspec.engine import Scenario, StringMatching`) load on first use: the
first one asked for imports the whole library and registers every built-in check, as
importing the package used to. The package alone costs nothing, so `checkspec --version`
and `--help` start at once; the engine's own modules register the built-in checks when
they read the registry (core/check.py). It never imports litellm: LLM checks load it on
their first call.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors
    from ._api import *  # noqa: F403


def __getattr__(name: str) -> Any:
    if name.startswith("__") and name != "__all__":  # dunders the import system probes
        raise AttributeError(name)
    _api = import_module("checkspec.engine._api")
    try:
        value = getattr(_api, name)
    except AttributeError:
        raise AttributeError(f"module 'checkspec.engine' has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    _api = import_module("checkspec.engine._api")
    return sorted({*globals(), *_api.__all__})
