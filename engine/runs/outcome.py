"""Whether a run checked anything, and what it left out: no green without a check.

A run whose scenarios were all left out (drafts, another shard, a `--status` filter) or
whose scenarios ran no check (every check `enabled: false`, every verdict skipped) passed
nothing: every front end reports it as "nothing checked" (the CLI's exit 5, pytest's
"no tests collected" code, docs/outcomes.md) and says which scenarios were left out and
why, so a CI job cannot turn green on zero checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .report import RunReport, ScenarioRun

# As pytest's "no tests collected" (ExitCode.NO_TESTS_COLLECTED): the same code for the
# same meaning, so a CI script that knows one knows both.
EXIT_NOTHING_CHECKED = 5

SHOWN = 10  # names listed per reason; the rest are counted
UNCHECKED = "scenario(s) ran no check (all disabled or skipped)"


def checked(run: ScenarioRun) -> bool:
    """Whether the scenario gave a verdict on anything: a check passed, failed or errored,
    or the scenario itself errored (a target or a worker failing is a finding too)."""
    result = run.result
    if result.errored or result.failed:
        return True
    return any(check.passed for step in result.steps for check in step.results)


def nothing_checked(report: RunReport) -> bool:
    """The run passed without a single verdict (no scenario, or none that checked)."""
    return not any(checked(run) for run in report.runs)


@dataclass
class LeftOut:
    """Scenarios a run did not check, by reason (`reason -> identities`, in order)."""

    reasons: dict[str, list[str]] = field(default_factory=dict)

    def add(self, reason: str, identities: Iterable[str]) -> None:
        names = list(identities)
        if names:
            self.reasons.setdefault(reason, []).extend(names)

    def __bool__(self) -> bool:
        return bool(self.reasons)

    def lines(self) -> list[str]:
        """`left out: N REASON: a, b, ... (and K more)`, one line per reason (a reason
        names what is counted: `draft scenario(s) not run (...)`)."""
        return [listed("left out", reason, names) for reason, names in self.reasons.items()]


def listed(head: str, reason: str, names: Sequence[str]) -> str:
    """`HEAD: N REASON: a, b, ... (and K more)`."""
    shown = ", ".join(names[:SHOWN])
    more = f" (and {len(names) - SHOWN} more)" if len(names) > SHOWN else ""
    return f"{head}: {len(names)} {reason}: {shown}{more}"


def unchecked(report: RunReport) -> list[str]:
    """The identities of the scenarios that ran and passed without any verdict."""
    return [
        run.identity or run.result.scenario_name
        for run in report.runs
        if not checked(run) and run.ending != "cancelled"
    ]


def verdict_lines(report: RunReport, left_out: LeftOut) -> list[str]:
    """What the run left out, and the scenarios that ran but checked nothing."""
    lines = left_out.lines()
    if idle := unchecked(report):
        lines.append(listed("unchecked", UNCHECKED, idle))
    return lines


def nothing_checked_line(report: RunReport) -> str:
    """Why a run that checked nothing is not green (the last line it prints)."""
    ran = len(report.runs)
    why = "no scenario ran" if not ran else f"none of the {ran} scenario(s) ran a check"
    return f"nothing checked: {why} (exit {EXIT_NOTHING_CHECKED})"
