"""Code lenses: run one scenario or every scenario of the file; after a run, its outcome
(which opens the transcript); on a scenario that cannot run, why; on a file with labelled
checks (`expect:`), "Calibrate" (its judges against the labels, `checkspec calibrate`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.kinds import FileKind
from checkspec.engine.spec.problems import Range, Severity
from checkspec.engine.spec.scenario_analysis import ScenarioEntry

from .command_names import CALIBRATE_FILE as CALIBRATE_FILE
from .command_names import RUN_FILE as RUN_FILE
from .command_names import RUN_SCENARIO as RUN_SCENARIO
from .command_names import SHOW_LAST_RUN as SHOW_LAST_RUN
from .cost_estimate import Estimate, estimate, lens_note
from .last_run import LastRun, current_runs
from .result_hints import MARKS, duration

NO_COMMAND = ""  # a lens that only tells something
_REASON_CHARS = 80


@dataclass(frozen=True)
class Lens:
    range: Range
    title: str
    command: str
    scenario: int | None = None  # the scenario index, for RUN_SCENARIO


def code_lenses(
    document: Document,
    text: str = "",
    runs: dict[int, LastRun] | None = None,
    model: str | None = None,
    prices: Mapping[str, tuple[float, float]] | None = None,
) -> list[Lens]:
    """A lens on each scenario's name; "Run all" on line 1 of multi-scenario files.

    A scenario that cannot run says why instead of offering to run; one whose last run is
    still true of its text shows that run's outcome. A run that calls models says about
    what it costs (`model`, `prices`: the document's settings; cost_estimate.py).
    """
    runnable = [entry for entry in document.scenarios if entry.scenario is not None]
    estimates = {entry.index: estimate(entry.scenario) for entry in runnable}

    def note(found: Estimate) -> str:
        said = lens_note(found, model, prices or {})
        return f" · {said}" if said else ""

    lenses = []
    if runnable and document.kind is not FileKind.SCENARIO:  # a scenario file holds one
        count = len(runnable)
        total = len(document.scenarios)
        shown = f"{count}" if count == total else f"{count} of {total}"
        overall = sum(estimates.values(), Estimate())
        lenses.append(Lens(Range.point(0, 0), f"▶ Run all ({shown}){note(overall)}", RUN_FILE))
    labels = sum(
        1
        for entry in runnable
        for check in entry.checks
        if check.node.kind == "mapping" and check.node.value.get("expect") in ("pass", "fail")
    )
    if labels:  # judges against a person's labels (`checkspec calibrate`)
        lenses.append(Lens(Range.point(0, 0), f"⚖ Calibrate ({labels} labelled)", CALIBRATE_FILE))
    last = {entry.index: run for entry, run in current_runs(document, text, runs or {})}
    for entry in document.scenarios:
        if entry.scenario is None:
            lenses.append(
                Lens(entry.head, f"⚠ not runnable: {why(entry)}", NO_COMMAND, entry.index)
            )
            continue
        title = "▶ Run scenario" + note(estimates[entry.index])
        lenses.append(Lens(entry.head, title, RUN_SCENARIO, entry.index))
        run = last.get(entry.index)
        if run is not None:
            lenses.append(Lens(entry.head, outcome_title(run), SHOW_LAST_RUN, entry.index))
    return lenses


def why(entry: ScenarioEntry) -> str:
    """The first error of a scenario, short (`unknown check 'x'`)."""
    errors = [p for p in entry.problems if p.severity is Severity.ERROR]
    if not errors:
        return "it has problems"
    first = errors[0].message.split("; did you mean", 1)[0]
    first = first if len(first) <= _REASON_CHARS else first[: _REASON_CHARS - 1] + "…"
    more = len(errors) - 1
    return first + (f" (+{more} more)" if more else "")


def outcome_title(run: LastRun) -> str:
    """`✗ fail · 12 ms — show last run`."""
    status = str(run.summary.get("status", ""))
    took = duration(run.summary.get("duration_ms"))
    return (
        f"{MARKS.get(status, '?')} {status}" + (f" · {took}" if took else "") + " — show last run"
    )
