"""Suite and SuiteResult: runs, counts, grouping, reports and the JUnit export."""

from __future__ import annotations

import asyncio
import io
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console

from checkspec.engine import (
    CheckResult,
    Equals,
    FnCheck,
    GroupedSuiteResult,
    GroupStats,
    Scenario,
    ScenarioResult,
    Suite,
    SuiteResult,
    TestCaseResult,
    Trace,
)


def echo(inputs: str) -> str:
    return inputs


def scenario(name: str, expected: str, tags: list[str] | None = None) -> Scenario:
    return (
        Scenario(name, tags=tags or [])
        .interact("hello")
        .check(Equals(expected_value=expected, name=f"{name}_check"))
    )


async def test_suite_target_answers_every_scenario() -> None:
    suite = Suite(name="s", target=echo).append(scenario("a", "hello")).append(scenario("b", "bye"))
    result = await suite.run(verbose=False)
    assert [r.status.value for r in result.results] == ["pass", "fail"]
    assert (result.passed_count, result.failed_count, result.errored_count) == (1, 1, 0)
    assert result.pass_rate == 0.5 and result.suite is suite
    # A run target overrides the suite's.
    result = await suite.run(target=lambda inputs: "bye", verbose=False)
    assert [r.status.value for r in result.results] == ["fail", "pass"]


async def test_parallel_run_keeps_the_order_and_the_concurrency_limit() -> None:
    running = 0
    peak = 0

    async def slow(inputs: str) -> str:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.01)
        running -= 1
        return inputs

    suite = Suite(name="s", scenarios=[scenario(str(i), "hello") for i in range(6)])
    result = await suite.run(target=slow, parallel=True, max_concurrency=2, verbose=False)
    assert [r.scenario_name for r in result.results] == [str(i) for i in range(6)]
    assert result.passed_count == 6 and peak == 2
    with pytest.raises(ValueError, match="max_concurrency must be greater than 0"):
        await suite.run(target=slow, max_concurrency=0)
    with pytest.raises(TypeError, match="positive integer"):
        await suite.run(target=slow, max_concurrency=True)


async def test_exceptions_propagate_unless_returned() -> None:
    def broken(inputs: str) -> str:
        raise RuntimeError("target down")

    suite = Suite(name="s", scenarios=[scenario("a", "x")], target=broken)
    with pytest.raises(RuntimeError, match="target down"):
        await suite.run(verbose=False)
    with pytest.raises(RuntimeError, match="target down"):
        await suite.run(parallel=True, verbose=False)
    result = await suite.run(return_exception=True, verbose=False)
    assert result.errored_count == 1 and result.pass_rate == 0.0


def test_pass_rate_leaves_skipped_scenarios_out() -> None:
    skipped = _scenario_result("s", [CheckResult.skip(message="later")])
    assert SuiteResult(results=[skipped], duration_ms=0).pass_rate is None
    passed = _scenario_result("p", [CheckResult.success()])
    assert SuiteResult(results=[skipped, passed], duration_ms=0).pass_rate == 1.0
    assert SuiteResult(results=[], duration_ms=0).pass_rate is None


def _scenario_result(name: str, checks: list[CheckResult], tags: list[str] | None = None):
    return ScenarioResult(
        scenario_name=name,
        steps=[TestCaseResult(results=checks, duration_ms=1)],
        duration_ms=2,
        final_trace=Trace(),
        tags=tags or [],
    )


def test_group_by_counts_each_value_of_a_tag_key() -> None:
    result = SuiteResult(
        results=[
            _scenario_result("a", [CheckResult.success()], ["Category:Billing"]),
            _scenario_result("b", [CheckResult.failure()], ["Category:Billing", "Category:Tone"]),
            _scenario_result("c", [CheckResult.error()], ["Other:x"]),
            _scenario_result("d", [CheckResult.skip()], ["Category"]),
        ],
        duration_ms=5,
    )
    grouped = result.group_by("Category")
    assert isinstance(grouped, GroupedSuiteResult)
    assert grouped.groups == {
        "Billing": GroupStats(name="Billing", passed=1, failed=1, errored=0),
        "Tone": GroupStats(name="Tone", passed=0, failed=1, errored=0),
        None: GroupStats(name=None, passed=0, failed=0, errored=1),
        "": GroupStats(name="", passed=0, failed=0, errored=0, skipped=1),
    }
    billing = grouped.groups["Billing"]
    assert (billing.total, billing.non_skipped, billing.pass_rate) == (2, 2, 0.5)
    assert grouped.groups[""].pass_rate is None
    dumped = result.model_dump()
    assert dumped["passed_count"] == 1 and "suite" not in dumped
    assert result.to_hub_format()["errored_count"] == 1


async def test_reports_render_with_rich() -> None:
    result = await Suite(name="s", target=echo, scenarios=[scenario("a", "bye", ["K:v"])]).run(
        verbose=False
    )
    out = io.StringIO()
    result.print_report(Console(file=out, width=100, no_color=True), group_by="K")
    text = out.getvalue()
    assert "Suite Results" in text and "a_check" in text and "FAIL" in text
    assert "Results by K" in text and "0 / 1" in text
    assert "Pass Rate" in text


async def test_junit_xml_has_a_testcase_per_scenario(tmp_path: Path) -> None:
    failing = scenario("refund", "bye")
    crashing = Scenario("crash").interact("q").check(FnCheck(fn=lambda t: "?", name="sloppy"))
    result = await Suite(
        name="s", target=echo, scenarios=[scenario("ok", "hello"), failing, crashing]
    ).run(return_exception=True, verbose=False)
    path = tmp_path / "out" / "report.xml"
    text = result.to_junit_xml(path)
    assert path.read_text(encoding="utf-8").startswith("<?xml")
    root = ET.fromstring(text)
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "1")
    ok, refund, crash = root.findall("testcase")
    assert ok.find("failure") is None and ok.get("name") == "ok"
    failure = refund.find("failure")
    assert failure is not None and failure.get("type") == "refund_check"
    assert "step_1.refund_check" in (failure.text or "")
    error = crash.find("error")
    assert error is not None and error.get("type") == "sloppy"
    names = [p.get("name") for p in refund.find("properties")]
    assert names[:2] == ["final_trace", "step_1"]
    assert "FAIL" in (refund.findtext("system-out") or "")


def test_junit_xml_survives_characters_xml_forbids() -> None:
    bad = _scenario_result("ansi", [CheckResult.failure(message="\x1b[31mred\x1b[0m")])
    root = ET.fromstring(SuiteResult(results=[bad], duration_ms=0).to_junit_xml())
    assert "#x1B[31mred" in (root.find("testcase/failure").get("message") or "")
