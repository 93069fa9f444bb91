"""How many failing scenarios a suite report details: giskard-checks'
GISKARD_CHECKS_MAX_REPORTED_FAILURES variable (a count >= 0; unset or unreadable: all).

Read when a report is printed, like the reference library, through the one reader of the
environment (environment.py: the variable, not `.env`, as before); a plain module so the
settings module can name it without loading the report's rich renderers.
"""

from __future__ import annotations

from . import environment

MAX_REPORTED_FAILURES_ENV_VAR = "GISKARD_CHECKS_MAX_REPORTED_FAILURES"


def normalize_max_reported_failures(value: object) -> int | None:
    """A count >= 0, else None (unlimited): "", "invalid", -1 and booleans included."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | str):
        return None
    try:
        parsed = int(value)
    except ValueError:
        return None
    return parsed if parsed >= 0 else None


def max_reported_failures() -> int | None:
    given = environment.reference_values(env_file=None).get("max_reported_failures")
    return normalize_max_reported_failures(given)
