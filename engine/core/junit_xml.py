"""JUnit XML of a suite result: one <testcase> per scenario (CI test reports).

A failed or errored scenario carries a <failure>/<error> naming its first failing
check, with every such check and its details in the text; the final trace, each step
and each metric are <properties>; the rendered report is <system-out>.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from io import StringIO
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree as ET

from . import redact

if TYPE_CHECKING:
    from .result import CheckResult, ScenarioResult, SuiteResult

# Characters XML 1.0 forbids even escaped (e.g. ANSI escapes in model output): shown as
# "#xNN" so one stray byte cannot make the whole report unreadable.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def to_junit_xml(result: SuiteResult, path: str | Path | None = None) -> str:
    """The report as text; also written (UTF-8, with declaration) to `path` if given."""
    scenarios = result.results
    root = ET.Element(
        "testsuite",
        {
            "name": "Test run",
            "tests": str(len(scenarios)),
            "failures": str(sum(s.failed for s in scenarios)),
            "errors": str(sum(s.errored for s in scenarios)),
            "skipped": str(sum(s.skipped for s in scenarios)),
            "assertions": str(sum(_checks(s) for s in scenarios)),
            "time": _seconds(result.duration_ms),
            "timestamp": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        },
    )
    for scenario in scenarios:
        case = ET.SubElement(
            root,
            "testcase",
            {
                "name": scenario.scenario_name,
                "assertions": str(_checks(scenario)),
                "time": _seconds(scenario.duration_ms),
            },
        )
        _properties(case, scenario)
        _outcome(case, scenario)
        report = _report(scenario)
        if report:
            ET.SubElement(case, "system-out").text = report
    # Every text and attribute with the process's secrets masked (redact.py: a key an
    # endpoint echoed in a message, a password in a URL an output printed).
    redacted = redact.current().text
    for element in root.iter():
        if element.text:
            element.text = _xml_safe(redacted(element.text))
        for name, value in list(element.attrib.items()):
            element.set(name, _xml_safe(redacted(value)))
    tree = ET.ElementTree(root)
    ET.indent(tree, space="  ")
    if path is not None:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        tree.write(target, encoding="utf-8", xml_declaration=True)
    return ET.tostring(root, encoding="unicode")


def _seconds(duration_ms: int) -> str:
    return f"{duration_ms / 1000:.6f}"


def _checks(scenario: ScenarioResult[Any]) -> int:
    return sum(len(step.results) for step in scenario.steps)


def _json(value: Any) -> str:
    data = value.model_dump(mode="json") if hasattr(value, "model_dump") else value
    return json.dumps(data, ensure_ascii=False, default=str)


def _label(scenario: ScenarioResult[Any], step: int, index: int, check: CheckResult) -> str:
    names = scenario.steps[step].check_names
    name = names[index] if index < len(names) else None
    return str(
        name
        or check.details.get("check_name")
        or check.details.get("check_kind")
        or f"check_{index + 1}"
    )


def _properties(case: ET.Element, scenario: ScenarioResult[Any]) -> None:
    properties = ET.SubElement(case, "properties")
    ET.SubElement(
        properties, "property", {"name": "final_trace", "value": _json(scenario.final_trace)}
    )
    for s, step in enumerate(scenario.steps, start=1):
        ET.SubElement(properties, "property", {"name": f"step_{s}", "value": _json(step)})
        for c, check in enumerate(step.results, start=1):
            for metric in check.metrics:
                ET.SubElement(
                    properties,
                    "property",
                    {"name": f"step_{s}.check_{c}.{metric.name}", "value": str(metric.value)},
                )


def _outcome(case: ET.Element, scenario: ScenarioResult[Any]) -> None:
    status = scenario.status.value
    if status == "pass":
        return
    wanted = {"error": "errored", "fail": "failed", "skip": "skipped"}[status]
    matches = [
        (s, c, check)
        for s, step in enumerate(scenario.steps)
        for c, check in enumerate(step.results)
        if getattr(check, wanted)
    ]
    lines = [
        f"scenario={scenario.scenario_name}",
        "See testcase properties for final_trace and step payloads.",
    ]
    for s, c, check in matches:
        lines.append(
            f"[{check.status.value.upper()}] step_{s + 1}.{_label(scenario, s, c, check)}: "
            f"{check.message or ''}"
        )
        if check.details:
            lines.append(f"details={_json(check.details)}")
    if status == "skip":
        ET.SubElement(case, "skipped").text = "\n".join(lines)
        return
    tag, fallback = (
        ("error", "Scenario errored.") if status == "error" else ("failure", "Scenario failed.")
    )
    attributes = {"type": tag, "message": fallback}
    if matches:
        s, c, first = matches[0]
        attributes = {"type": _label(scenario, s, c, first), "message": first.message or fallback}
    ET.SubElement(case, tag, attributes).text = "\n".join(lines)


def _report(scenario: ScenarioResult[Any]) -> str:
    from rich.console import Console

    buffer = StringIO()
    scenario.print_report(Console(file=buffer, force_terminal=False, no_color=True, width=120))
    return buffer.getvalue().rstrip()


def _xml_safe(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"#x{ord(m.group()):02X}", text)


__all__ = ["to_junit_xml"]
