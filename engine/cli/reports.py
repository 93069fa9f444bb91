"""Output formats of `checkspec run`: text, json, junit, sarif."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from xml.etree import ElementTree as ET

from ..core.result import CheckResult, TestCaseStatus
from ..core.usage import Usage
from ..history.payload import build_payload, dumps
from ..runs.report import RunReport, ScenarioRun

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
        from ..runs.repeat import describe

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


def to_json(report: RunReport) -> str:
    """The JSON run report (engine/history/payload.py: the history keeps the same dict)."""
    return dumps(build_payload(report))


def to_junit(report: RunReport) -> str:
    suites = ET.Element("testsuites", name="checkspec")
    by_file: dict[str, list[ScenarioRun]] = {}
    for run in report.runs:
        by_file.setdefault(run.path, []).append(run)
    for path, runs in by_file.items():
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=path,
            tests=str(len(runs)),
            failures=str(sum(r.result.status is TestCaseStatus.FAIL for r in runs)),
            errors=str(sum(r.result.status is TestCaseStatus.ERROR for r in runs)),
            skipped=str(sum(r.result.status is TestCaseStatus.SKIP for r in runs)),
            time=f"{sum(r.result.duration_ms for r in runs) / 1000:.3f}",
        )
        if in_file := Usage.total(r.result.usage for r in runs):  # the file's scenarios'
            _usage_properties(ET.SubElement(suite, "properties"), in_file)
        for run in runs:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=path,
                name=run.result.scenario_name,
                file=path,
                line=str(run.line),
                time=f"{run.result.duration_ms / 1000:.3f}",
            )
            spent = run.result.usage
            if run.rerun or run.repeats is not None or spent:
                properties = ET.SubElement(case, "properties")  # one element a testcase
                if run.rerun:
                    ET.SubElement(properties, "property", name="rerun", value=run.rerun)
                if run.repeats is not None:
                    _repeat_properties(properties, run.repeats)
                if spent:  # all its runs' (repeats included): they sum to the run's
                    _usage_properties(properties, spent)
            status = run.result.status
            if status in (TestCaseStatus.FAIL, TestCaseStatus.ERROR):
                details = "\n".join(scenario_lines(run)[1:])
                tag = "failure" if status is TestCaseStatus.FAIL else "error"
                first = next(non_passing(run), None)
                message = first[2].message if first else status.value
                ET.SubElement(case, tag, message=message or status.value).text = details
            elif status is TestCaseStatus.SKIP:
                ET.SubElement(case, "skipped")
            if run.output:
                ET.SubElement(case, "system-out").text = _xml_safe(run.output)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _repeat_properties(properties: ET.Element, repeats: dict[str, Any]) -> None:
    """`--repeat K`: the scenario's pass count and rate, flaky, and each check's."""
    for name in ("runs", "passed", "rate", "flaky"):
        value = repeats.get(name)
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        ET.SubElement(properties, "property", name=f"repeat.{name}", value=shown)
    for check in repeats.get("checks") or []:
        label = f"repeat.check.{check['step']}.{check['index']}.{check.get('check') or 'check'}"
        ET.SubElement(
            properties, "property", name=label, value=f"{check['passed']}/{check['runs']}"
        )


def _usage_properties(properties: ET.Element, usage: Usage) -> None:
    for name, value in usage.model_dump().items():
        ET.SubElement(properties, "property", name=f"usage.{name}", value=str(value))


def _xml_safe(text: str) -> str:
    """XML 1.0 cannot hold most control characters, even escaped: drop them."""
    return "".join(
        c
        for c in text
        if c in "\t\n\r"
        or (" " <= c <= "\ud7ff")
        or ("\ue000" <= c <= "\ufffd")
        or c >= "\U00010000"
    )


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def to_sarif(report: RunReport, tool_version: str) -> str:
    rules: dict[str, dict[str, Any]] = {}
    results = []
    for run in report.runs:
        for _s, _i, check, name, line in non_passing(run):
            rules.setdefault(name, {"id": name, "shortDescription": {"text": f"checkspec {name}"}})
            results.append(
                {
                    "ruleId": name,
                    "level": "error",
                    "kind": "fail",
                    "message": {
                        "text": f"{run.result.scenario_name}: {LABELS[check.status.value]} "
                        f"{check.message or ''}".strip()
                    },
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": run.path},
                                "region": {"startLine": line},
                            }
                        }
                    ],
                }
            )
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "checkspec",
                        "version": tool_version,
                        "informationUri": "https://github.com/checkspec/checkspec",
                        "rules": list(rules.values()),
                    }
                },
                "results": results,
                **(
                    {"properties": {"usage": spent.model_dump()}} if (spent := report.usage) else {}
                ),
            }
        ],
    }
    return json.dumps(sarif, indent=2, ensure_ascii=False)
