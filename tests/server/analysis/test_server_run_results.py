"""Run results in the editor: the summary JSON, the one-line summaries and the findings
placed at the lines of the checks and steps they are about (server/analysis)."""

from __future__ import annotations

from typing import Any

from checkspec.engine.core.result import CheckResult, ScenarioResult, TestCaseError, TestCaseResult
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Position, Range, Severity
from checkspec.server.analysis.run_results import run_findings, run_summary, summary_line
from checkspec.server.analysis.symbols import SymbolRole, document_symbols
from tests.support.analysis import dedent

TEXT = dedent(
    """
    name: refund
    tags: [billing, faq]
    steps:
      - interacts:
          - inputs: first
            outputs: We offer a 30-day refund.
        checks:
          - kind: string_matching
            keyword: refund
          - kind: regex_matching
            name: has days
            pattern: 'never'
      - interacts:
          - inputs: second
            outputs: ok
        checks:
          - kind: equals
            target_key: trace.last.outputs.nope
            expected_value: 1
    """
)


def entry():
    return analyze(TEXT, "t.scenario.yaml", None).scenarios[0]


def step(*results: CheckResult, names: list[str], error: TestCaseError | None = None) -> Any:
    return TestCaseResult(results=list(results), check_names=names, error=error)


def scenario_result(*steps: TestCaseResult, replayed: bool = False) -> ScenarioResult:
    return ScenarioResult(scenario_name="refund", steps=list(steps), replayed=replayed)


async def test_a_real_run_is_summarised_check_by_check_at_their_lines() -> None:
    the_entry = entry()
    result = await the_entry.scenario.run()
    summary = run_summary(the_entry, result)
    durations = [check.pop("duration_ms", None) for check in summary["checks"]]
    assert all(isinstance(d, float) for d in durations[:2]) and durations[2] is None
    assert summary == {
        "scenario": "refund",
        "index": 0,
        "line": 0,
        "status": "fail",
        # of every check written, the ones of the step that did not run included
        "summary": "refund: fail — 1 failed of 3 checks (recorded outputs replayed)",
        "replayed": True,
        "duration_ms": result.duration_ms,
        "answer": "We offer a 30-day refund.",
        "checks": [
            {
                "step": 0,
                "index": 0,
                "kind": "string_matching",
                "line": 7,
                "status": "pass",
                "message": "The answer contains the keyword 'refund'.",
                "expected": "refund",
                "actual": "We offer a 30-day refund.",
            },
            {
                "step": 0,
                "index": 1,
                "kind": "regex_matching",
                "line": 9,
                "status": "fail",
                "message": "Text does not match the regex pattern 'never'.",
                "expected": "never",
                "actual": "We offer a 30-day refund.",
            },
            {
                "step": 1,
                "index": 0,
                "kind": "equals",
                "line": 16,
                "status": "skip",
                "message": "not run: an earlier step did not pass",
            },
        ],
        "errors": [],
    }
    findings = run_findings(the_entry, result)
    assert [(f.code, f.message, f.range.start, f.severity) for f in findings] == [
        (
            "scenario-fail",
            "refund: fail — 1 failed of 3 checks (recorded outputs replayed)",
            Position(0, 6),
            Severity.WARNING,
        ),
        (
            "check-fail",
            "has days failed: Text does not match the regex pattern 'never'.",
            Position(9, 14),
            Severity.ERROR,
        ),
    ]


def test_summaries_count_failed_and_errored_checks() -> None:
    e = entry()
    ok, bad, err, skip = (
        CheckResult.success("ok"),
        CheckResult.failure("no"),
        CheckResult.error("oops"),
        CheckResult.skip("n/a"),
    )
    assert (
        summary_line(e, scenario_result(step(ok, names=["a"]))) == "refund: pass — 1 check passed"
    )
    assert (
        summary_line(e, scenario_result(step(ok, skip, ok, names=["a", "b", "c"]), replayed=True))
        == "refund: pass — 2 checks passed (recorded outputs replayed)"
    )
    assert (
        summary_line(e, scenario_result(step(bad, err, err, ok, names=["a", "b", "c", "d"])))
        == "refund: error — 1 failed and 2 errored of 4 checks"
    )
    assert (
        summary_line(e, scenario_result(step(err, names=["a"])))
        == "refund: error — 1 errored of 1 check"
    )
    assert (
        summary_line(e, scenario_result(step(bad, bad, names=["a", "b"])))
        == "refund: fail — 2 failed of 2 checks"
    )
    crashed = step(skip, names=["a"], error=TestCaseError(message="x", exception_type="E"))
    assert summary_line(e, scenario_result(crashed)) == "refund: error — a step could not run"
    # a skipped step without checks reports one SKIP that is not counted
    assert summary_line(e, scenario_result(step(ok, names=["a"]), step(skip, names=[]))) == (
        "refund: pass — 1 check passed"
    )


def test_a_step_that_could_not_run_is_reported_at_the_step() -> None:
    e = entry()
    error = TestCaseError(message="down", exception_type="RuntimeError", phase="interaction")
    in_check = TestCaseError(message="bad", exception_type="ValueError", phase="checks")
    result = scenario_result(
        step(CheckResult.success("ok"), CheckResult.error(None), names=["a"]),
        step(CheckResult.skip("not run"), names=["b"], error=error),
    )
    findings = run_findings(e, result)
    assert [(f.code, f.message, f.range) for f in findings[1:]] == [
        (
            "check-error",
            "regex_matching errored: no message",
            Range(Position(9, 14), Position(9, 28)),
        ),
        (
            "step-errored",
            "step 2 errored: RuntimeError during interaction: down",
            Range(Position(12, 4), Position(12, 13)),
        ),
    ]
    assert findings[0].severity is Severity.WARNING
    summary = run_summary(e, result)
    assert summary["errors"] == [
        {"step": 1, "line": 12, "message": "RuntimeError during interaction: down"}
    ]
    assert summary["checks"][1]["message"] == ""
    # an error while running the checks is reported by the checks, not at the step
    checked = scenario_result(step(CheckResult.error("x"), names=["a"], error=in_check))
    assert [f.code for f in run_findings(e, checked)] == ["scenario-error", "check-error"]


def test_a_passing_run_adds_no_problem() -> None:
    e = entry()
    # shown in place (inlay hints, lenses), not in the editor's list of problems
    assert run_findings(e, scenario_result(step(CheckResult.success("ok"), names=["a"]))) == []
    # results beyond the written checks (none is at that place) are not placed
    extra = scenario_result(step(*(CheckResult.failure("no") for _ in range(3)), names=["a"]))
    assert [f.message for f in run_findings(e, extra)[1:]] == [
        "a failed: no",
        "regex_matching failed: no",
    ]


def test_the_outline_names_steps_checks_and_tags() -> None:
    (scenario,) = document_symbols(analyze(TEXT, "t.scenario.yaml", None))
    assert (scenario.name, scenario.role, scenario.detail) == (
        "refund",
        SymbolRole.SCENARIO,
        "billing, faq",
    )
    assert [(s.name, s.detail) for s in scenario.children] == [
        ("step 1", '"first"'),
        ("step 2", '"second"'),
    ]
    assert [(c.name, c.detail) for c in scenario.children[0].children] == [
        ("string_matching", ""),
        ("regex_matching", "has days"),
    ]
    broken = TEXT.replace("kind: equals", "kind: nope")
    (invalid,) = document_symbols(analyze(broken, "t.scenario.yaml", None))
    assert invalid.detail == "not runnable"
