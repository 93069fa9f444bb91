"""The text report of a run: one status line per scenario, each failed check at its line,
what the agent did and what it printed; the summary line. `checkspec run`'s text format
and the pytest plugin's failure report are both this text, so it lives in the run tier,
below every front end (neither front end imports the other)."""

from __future__ import annotations

from collections.abc import Iterator

from ..core.result import CheckResult, TestCaseStatus
from .report import RunReport, ScenarioRun

LABELS = {"pass": "PASS", "fail": "FAIL", "error": "ERROR", "skip": "SKIP"}
OUTPUT_LINES = 20  # of a failed scenario's printed output, in the text report


def non_passing(run: ScenarioRun) -> Iterator[tuple[int, int, CheckResult, str, int]]:
    """(step, index, result, check label, 1-based line) of each failed/errored check."""
    for s, step in enumerate(run.result.steps):
        if step.error is not None and step.error.phase in (
            "input_generation",
            "interaction",
            "target",
            "run",
        ):
            # "run": the scenario never finished (its deadline, a dead worker).
            label = "scenario" if step.error.phase == "run" else "interaction"
            line = run.line if step.error.phase == "run" else run.step_line(s)
            yield s, -1, CheckResult.error(step.error.summary()), label, line
        for i, result in enumerate(step.results):
            if result.status.value not in ("fail", "error"):
                continue
            kind, line = run.check_at(s, i) or ("check", run.line)
            yield s, i, result, kind, line


def summary_line(report: RunReport) -> str:
    parts = [
        f"{report.count(status)} {word}"
        for status, word in (
            (TestCaseStatus.PASS, "passed"),
            (TestCaseStatus.FAIL, "failed"),
            (TestCaseStatus.ERROR, "errored"),
            (TestCaseStatus.SKIP, "skipped"),
        )
        if report.count(status) or status is TestCaseStatus.PASS
    ]
    replayed = sum(1 for r in report.runs if r.result.replayed)
    note = f"; {replayed} replayed recorded outputs (no target)" if replayed else ""
    reran = sum(1 for r in report.runs if r.rerun)
    if reran:  # never silent: their first run was lost with its worker
        note += f"; {reran} re-run (their worker process was stopped or died)"
    if report.repeat > 1:
        flaky = sum(1 for r in report.runs if r.repeats and r.repeats.get("flaky"))
        note += (
            f"; each scenario run {report.repeat} times (min pass rate {report.min_pass_rate:g})"
            f", {flaky} flaky"
        )
    spent = report.usage
    cost = f"; {spent.describe()}" if spent else ""
    return f"{', '.join(parts)} in {report.duration_s:.2f}s{note}{cost}"


# A check's message at least this long is shown once in a text report: a provider's
# error repeated by every check that called it would bury the report.
LONG_MESSAGE = 160


def text_lines(report: RunReport) -> list[str]:
    """The text report's scenario lines, each long message in full once only."""
    seen: dict[str, str] = {}
    return [line for run in report.runs for line in scenario_lines(run, seen)]


def scenario_lines(run: ScenarioRun, seen: dict[str, str] | None = None) -> list[str]:
    """The text report of one scenario: a status line, then each failed check. `seen`
    (long message -> where it was shown) shortens a long message shown before."""
    result = run.result
    label = LABELS[result.status.value]
    replayed = " (replayed)" if result.replayed else ""
    lines = [
        f"{label:<5} {result.scenario_name}  {result.duration_ms} ms{replayed}  "
        f"{run.path}:{run.line}"
    ]
    if run.rerun:
        lines.append(f"      {run.rerun}")
    if run.repeats is not None:
        from .repeat import describe

        lines.append(f"      {describe(run.repeats)}")
    for _s, _i, check, name, line in non_passing(run):
        message = (check.message or "").replace("\n", " ")
        if seen is not None and len(message) >= LONG_MESSAGE:
            if message in seen:
                message = seen[message]
            else:
                seen[message] = _same_as(check, f"{run.path}:{line}")
        lines.append(f"      {LABELS[check.status.value]} {name} at {run.path}:{line}: {message}")
    if result.status.value in ("fail", "error"):
        lines.extend(_captured_lines(run))
    if run.output and result.status.value in ("fail", "error"):
        printed = run.output.rstrip("\n").splitlines()
        shown = printed[-OUTPUT_LINES:]
        cut = f" (last {len(shown)} of {len(printed)} lines)" if len(shown) < len(printed) else ""
        lines.append(f"      output{cut}:")
        lines.extend(f"        | {line}" for line in shown)
    return lines


def _same_as(check: CheckResult, where: str) -> str:
    """What a repeated long message says instead: where it is in full, and the model."""
    details = check.details if isinstance(check.details, dict) else {}
    model = details.get("model")
    about = f", model {model}" if isinstance(model, str) and model else ""
    return f"same error as above ({where}{about})"


def _captured_lines(run: ScenarioRun) -> list[str]:
    """What the agent did in each interaction, as `capture: otel` recorded it."""
    from ..capture.summary import activity_lines, has_capture

    lines: list[str] = []
    for number, interaction in enumerate(run.result.final_trace.interactions, 1):
        if has_capture(interaction.metadata):
            lines.append(f"      what the agent did (interaction {number}):")
            lines.extend(f"        | {line}" for line in activity_lines(interaction.metadata))
    return lines
