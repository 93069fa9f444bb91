"""One run session under every front end: planning, running, folding repeats, re-run
marks, the budget, keeping the run (see session.py's docstring)."""

from .keep import keep_run
from .report import RunReport, ScenarioRun, scenario_identity
from .session import RunSession

__all__ = ["RunReport", "RunSession", "ScenarioRun", "keep_run", "scenario_identity"]
