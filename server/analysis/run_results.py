"""A scenario's run result, placed where the user wrote what it is about.

Each failed or errored check becomes a finding at its `kind:` (or `identifier:`) value,
a step that could not run (its target or interaction raised) one at the step, and a
scenario that did not pass gets a one-line summary at its name. Findings are `Problem`s, so the server
publishes them exactly like the static ones.

A scenario run K times (`repeat`) is shown as the run session folded it
(engine/runs/repeat.py): one verdict, the runs' tally in its summary and at its name, and
each check's tally at the check.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from checkspec.engine.core.result import CheckStatus, ScenarioResult, TestCaseStatus
from checkspec.engine.llm.snapshot import redactor
from checkspec.engine.spec.problems import Problem, Severity
from checkspec.engine.spec.scenario_analysis import ScenarioEntry

from .places import step_head

_VERB = {CheckStatus.FAIL: "failed", CheckStatus.ERROR: "errored"}


def run_findings(
    entry: ScenarioEntry, result: ScenarioResult, repeats: dict[str, Any] | None = None
) -> list[Problem]:
    """What did not pass, as problems; a scenario that passed has none (its outcome is
    shown in place, not added to the editor's list of problems)."""
    if result.passed:
        return []
    findings = [
        Problem(
            f"scenario-{result.status.value}",
            summary_line(entry, result, repeats),
            entry.head,
            Severity.WARNING,
        )
    ]
    tallies = _check_tallies(repeats)
    for s, step in enumerate(result.steps):
        error = step.error
        if error is not None and not (error.phase or "").startswith("check"):
            # The step never reached its checks: say why at the step itself.
            message = f"step {s + 1} errored: {error.summary()}"
            findings.append(Problem("step-errored", message, step_head(entry, s)))
        for j, check_result in enumerate(step.results):
            verb = _VERB.get(check_result.status)
            check = entry.check_at(s, j)
            if verb is None or check is None:
                continue
            name = step.check_names[j] if j < len(step.check_names) else check.kind
            message = check_result.message or "no message"
            tally = tallies.get((s, j), "")
            findings.append(
                Problem(
                    f"check-{check_result.status.value}",
                    f"{name} {verb}: {message}{tally}",
                    check.head,
                )
            )
    redact = redactor().text  # an endpoint's or an output's secret (core/redact.py)
    return [replace(f, message=redact(f.message)) for f in findings]


def _check_tallies(repeats: dict[str, Any] | None) -> dict[tuple[int, int], str]:
    """` (passed 3 of 5 runs)` for each check of a repeated run."""
    if not repeats:
        return {}
    return {
        (c["step"], c["index"]): f" (passed {c['passed']} of {c['runs']} runs)"
        for c in repeats.get("checks") or []
    }


def summary_line(
    entry: ScenarioEntry, result: ScenarioResult, repeats: dict[str, Any] | None = None
) -> str:
    """`refund: fail — 1 failed of 3 checks (recorded outputs replayed)`; a repeated run
    adds its tally: `…; 3/5 runs passed (60%), flaky`."""
    # A skipped step without checks still reports one SKIP: count only real checks.
    results = [r for step in result.steps for r in step.results[: len(step.check_names)]]
    bad = [r for r in results if r.status in _VERB]
    total = sum(1 for r in results if r.status is not CheckStatus.SKIP)
    if result.status is TestCaseStatus.PASS:
        counts = f"{_checks(total)} passed"
    elif bad:
        failed = sum(1 for r in bad if r.status is CheckStatus.FAIL)
        errored = len(bad) - failed
        parts = [f"{n} {what}" for n, what in ((failed, "failed"), (errored, "errored")) if n]
        counts = f"{' and '.join(parts)} of {_checks(len(results))}"
    else:
        counts = "a step could not run"
    how = " (recorded outputs replayed)" if result.replayed else ""
    if repeats:
        from checkspec.engine.runs.repeat import describe

        how += f"; {describe(repeats)}"
    return f"{entry.name}: {result.status.value} — {counts}{how}"


def _checks(count: int) -> str:
    return f"{count} check" if count == 1 else f"{count} checks"


# Where checks keep what they compared (comparisons, text matching, judges).
_EXPECTED = ("expected_value", "keyword", "pattern", "expected")
_ACTUAL = ("actual_value", "text", "actual", "value")
_SHOWN_CHARS = 10_000


def expected_and_actual(details: dict[str, Any] | None) -> dict[str, str]:
    """`expected` / `actual` as text, for an editor's diff; only when the check has both."""
    details = details or {}
    expected = next((details[k] for k in _EXPECTED if k in details), None)
    actual = next((details[k] for k in _ACTUAL if k in details), None)
    if expected is None or actual is None:
        return {}
    return {"expected": _shown(expected), "actual": _shown(actual)}


def _shown(value: Any) -> str:
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, indent=2, default=repr)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + " …"


def run_summary(
    entry: ScenarioEntry,
    result: ScenarioResult,
    *,
    transcript: bool = False,
    repeats: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON an editor can show: lines are 0-based, as in LSP.

    Each check has its status, message, time and (when it compared two values) `expected`
    and `actual`; `answer` is the agent's last answer. With `transcript`, also the
    conversation (`turns`) and each check's `details` (a judge's reason...).
    """
    checks = []
    for s, step in enumerate(result.steps):
        durations = step.check_durations_ms
        for j, check_result in enumerate(step.results):
            check = entry.check_at(s, j)
            if check is None:
                continue
            shown: dict[str, Any] = {
                "step": s,
                "index": j,
                "kind": check.kind,
                "line": check.head.start.line,
                "status": check_result.status.value,
                "message": check_result.message or "",
                **expected_and_actual(check_result.details),
            }
            if j < len(durations):
                shown["duration_ms"] = durations[j]
            if transcript:
                shown["details"] = shown_details(check_result.details)
            checks.append(shown)
    errors = [
        {"step": s, "line": step_head(entry, s).start.line, "message": step.error.summary()}
        for s, step in enumerate(result.steps)
        if step.error is not None
    ]
    return {
        "scenario": entry.name,
        "index": entry.index,
        "line": entry.head.start.line,
        "status": result.status.value,
        "summary": summary_line(entry, result, repeats),
        "replayed": result.replayed,
        "duration_ms": result.duration_ms,
        "checks": checks,
        "errors": errors,
        "answer": last_answer(result),
        **({"turns": turns(result)} if transcript else {}),
        **({"repeats": repeats} if repeats else {}),
    }


_MAX_TURNS = 200
_MAX_DETAILS = 30


def last_answer(result: ScenarioResult) -> str | None:
    """What the agent answered last, as text (None when nothing was asked)."""
    last = result.final_trace.last
    return None if last is None else _shown(last.outputs)


def turns(result: ScenarioResult) -> list[dict[str, Any]]:
    """The conversation that was checked: each interaction with the step that added it."""
    step_of: dict[int, int] = {}
    first = 0
    for s, step in enumerate(result.steps):
        last = step.last_interaction_index
        if last is not None:
            for i in range(first, last + 1):
                step_of[i] = s
            first = last + 1
    from checkspec.engine.capture.summary import activity_lines, has_capture

    found = []
    for i, interaction in enumerate(result.final_trace.interactions[:_MAX_TURNS]):
        turn = {
            "step": step_of.get(i, 0),
            "inputs": _shown(interaction.inputs),
            "outputs": _shown(interaction.outputs),
            "metadata": _shown(interaction.metadata) if interaction.metadata else "",
        }
        if has_capture(interaction.metadata):  # what the agent did (capture: otel)
            turn["activity"] = activity_lines(interaction.metadata)
        found.append(turn)
    return found


def shown_details(details: dict[str, Any] | None) -> dict[str, str]:
    """A check's details as text (a judge's reason, what was compared, a traceback)."""
    return {str(k): _shown(v) for k, v in list((details or {}).items())[:_MAX_DETAILS]}
