"""Output formats of `checkspec run`: json, junit, sarif (the text report is the run
tier's, engine/runs/text_report.py, which the pytest plugin shares)."""

from __future__ import annotations

import json
from typing import Any
from xml.etree import ElementTree as ET

from ..core.result import TestCaseStatus
from ..core.usage import Usage
from ..history.payload import build_payload, dumps
from ..runs.report import RunReport, ScenarioRun
from ..runs.text_report import LABELS, non_passing, scenario_lines


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
