"""checkspec.engine: the check library (checks, scenarios, test cases, suites, runners).

A drop-in for giskard-checks 1.0.6's public API: every name of its `__all__` is here
with the same signatures, fields and defaults (docs/compatibility.md lists the few
deliberate differences). It never imports litellm: LLM checks load it on their first call.

Its names (`from checkspec.engine import Scenario, StringMatching`) load on first use
(the list is in `_api.py`): the first one asked for imports the whole library and
registers every built-in check, as importing the package used to. The package alone
costs nothing, so `checkspec --version` and `--help` start at once; the engine's own
modules register the built-in checks when they read the registry (core/check.py), and
the reference library's module paths (`checkspec.engine.core.extraction`, ...) resolve
when they are imported (reference_paths.py).
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .reference_paths import install_finder as _install_finder

if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors
    from ._api import *  # noqa: F403

_install_finder()


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from .version import VERSION

        return VERSION
    if name.startswith("__") and name != "__all__":  # dunders the import system probes
        raise AttributeError(name)
    _api = import_module("checkspec.engine._api")
    if name == "__all__":
        value = [*_api.__all__, "__version__"]
        globals()[name] = value
        return value
    try:
        value = getattr(_api, name)
    except AttributeError:
        raise AttributeError(f"module 'checkspec.engine' has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    _api = import_module("checkspec.engine._api")
    return sorted({*globals(), *_api.__all__, "__version__"})
