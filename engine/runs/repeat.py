"""`--repeat K` (`checkspec run`, `--checkspec-repeat` in pytest): each scenario's K runs folded into one verdict.

A scenario passes when the share of its runs that passed (skipped ones left out) is at
least `--min-pass-rate` (default 1: every run) and at least one passed. Its runs' verdicts
differing makes it flaky. The report keeps one result a scenario, the first of its runs
whose status is the verdict (so its checks, reasons and conversation are one real run's),
and `repeats`: {"runs", "passed", "rate", "flaky", "statuses", "min_pass_rate", "checks":
[{"step", "index", "check", "runs", "passed", "rate"}]} per check of that scenario.
The kept result's `usage` is that of all its runs (each repeat's requests were sent: the
run's totals are the sum over scenarios); its checks' details keep their own run's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.usage import Usage
from ..executor import Ending

if TYPE_CHECKING:  # session.py imports this module when a run repeats
    from .report import ScenarioRun


def fold(runs: Sequence[ScenarioRun], min_pass_rate: float) -> ScenarioRun:
    """One scenario's runs (in repeat order) -> its run in the report."""
    counted = [r for r in runs if r.ending is not Ending.CANCELLED] or list(runs)
    statuses = [r.result.status.value for r in counted]
    judged = [s for s in statuses if s != "skip"]
    passed = sum(s == "pass" for s in judged)
    rate = passed / len(judged) if judged else None
    ok = rate is not None and passed > 0 and rate >= min_pass_rate
    if ok:
        shown = next(r for r in counted if r.result.status.value == "pass")
    else:
        shown = next(
            (r for r in counted if r.result.status.value in ("fail", "error")),
            counted[0],
        )
    checks: dict[tuple[int, int], list[int]] = {}
    for run in counted:
        for s, step in enumerate(run.result.steps):
            for i, result in enumerate(step.results):
                if result.status.value == "skip":
                    continue
                tally = checks.setdefault((s, i), [0, 0])
                tally[0] += result.status.value == "pass"
                tally[1] += 1
    per_check: list[dict[str, Any]] = []
    for (s, i), (good, total) in sorted(checks.items()):
        placed = shown.check_at(s, i)
        per_check.append(
            {
                "step": s,
                "index": i,
                "check": placed[0] if placed else None,
                "runs": total,
                "passed": good,
                "rate": round(good / total, 4) if total else None,
            }
        )
    spent = Usage.total(r.result.usage for r in runs)  # cancelled runs' requests too
    # A copy: folding again (a report of a run cut short) must not count a total twice.
    shown = dataclasses.replace(
        shown, result=shown.result.model_copy(update={"usage": spent if spent else None})
    )
    shown.repeats = {
        "runs": len(counted),
        "passed": passed,
        "rate": None if rate is None else round(rate, 4),
        "flaky": len(set(judged)) > 1,
        "statuses": statuses,
        "min_pass_rate": min_pass_rate,
        "checks": per_check,
    }
    return shown


def describe(repeats: dict[str, Any]) -> str:
    """`3/5 passed (60%), flaky` for the text report."""
    rate = repeats.get("rate")
    shown = "-" if rate is None else f"{rate * 100:.0f}%"
    flaky = ", flaky" if repeats.get("flaky") else ""
    return f"{repeats.get('passed')}/{repeats.get('runs')} runs passed ({shown}){flaky}"
