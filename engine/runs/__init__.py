"""One run session under every front end: planning, running, folding repeats, re-run
marks, the budget, keeping the run (see session.py's docstring); and the project every
front end opens once (project.py).

The names below load with their modules when first asked for: opening a project (every
command, `validate` included) must not import the run session, its executor and the
history."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .keep import keep_run
    from .report import RunReport, ScenarioRun, scenario_identity
    from .session import RunSession

__all__ = ["RunReport", "RunSession", "ScenarioRun", "keep_run", "scenario_identity"]

_HOME = {
    "RunReport": "report",
    "ScenarioRun": "report",
    "scenario_identity": "report",
    "RunSession": "session",
    "keep_run": "keep",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(import_module(f".{_HOME[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
