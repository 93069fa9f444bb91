"""Rich rendering of results (`print_report()`, or `rich.print(result)`).

Imported only when a result is printed: rich is a large import the engine's runs do
not otherwise need.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rich.markdown import Markdown
from rich.markup import escape
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table

from .report_limits import max_reported_failures

if TYPE_CHECKING:
    from .result import (
        CheckResult,
        GroupedSuiteResult,
        ScenarioResult,
        SuiteResult,
        TestCaseResult,
    )

# status -> (color, title, one-character symbol of the dots line)
STYLE = {
    "pass": ("green", "✅ PASSED", "."),
    "error": ("yellow", "⚠️ ERROR", "E"),
    "fail": ("red", "❌ FAILED", "F"),
    "skip": ("grey50", "⚠️ SKIPPED", "s"),
}
_ORDER = (("error", "errored"), ("fail", "failed"), ("skip", "skipped"), ("pass", "passed"))


# One renderer per result class, named by its `_renderer` (core/result.py).
def render_check(result: CheckResult, console: Any, options: Any) -> Iterator[Any]:
    yield from _check(result)


def render_test_case(result: TestCaseResult, console: Any, options: Any) -> Iterator[Any]:
    yield from _test_case(result)


def render_scenario(result: ScenarioResult[Any], console: Any, options: Any) -> Iterator[Any]:
    yield from _scenario(result, console, options)


def render_grouped(result: GroupedSuiteResult, console: Any, options: Any) -> Iterator[Any]:
    yield from _suite(result.suite_result, console, options)
    yield _group_table(result)
    yield from _recommendation(result.suite_result.recommendation)


def render_suite(result: SuiteResult, console: Any, options: Any) -> Iterator[Any]:
    yield from _suite(result, console, options)
    yield from _recommendation(result.recommendation)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(
        f"[{STYLE[key][0]} bold]{counts[key]} {label}[/{STYLE[key][0]} bold]"
        for key, label in _ORDER
        if counts.get(key)
    )


def _check(result: CheckResult, name: str | None = None) -> Iterator[str]:
    color = STYLE[result.status.value][0]
    label = name or result.details.get("check_name")
    shown = escape(str(label)) if label else "[dim italic]Unnamed check[/dim italic]"
    why = ""
    if result.failed or result.errored:
        why = escape(result.message) if result.message else "[dim italic]No message[/dim italic]"
    yield f"[{color} bold]{shown}[/{color} bold]\t[{color}]{result.status.value.upper()}[/{color}]\t{why}"


def _step_lines(step: TestCaseResult, color: str) -> Iterator[str]:
    if step.error is not None:
        yield step.error.rich_line(color)
    for index, check in enumerate(step.results):
        name = step.check_names[index] if index < len(step.check_names) else None
        yield from _check(check, name)


def _test_case(result: TestCaseResult) -> Iterator[Any]:
    color, title, _ = STYLE[result.status.value]
    yield Rule(title, style=f"{color} bold")
    yield from _step_lines(result, color)
    counts = {
        "error": sum(r.errored for r in result.results) + (result.error is not None),
        "fail": sum(r.failed for r in result.results),
        "skip": sum(r.skipped for r in result.results),
        "pass": sum(r.passed for r in result.results),
    }
    yield Rule(f"{_counts(counts)} in {result.duration_ms}ms", style=f"{color} bold")


def _scenario(result: ScenarioResult[Any], console: Any, options: Any) -> Iterator[Any]:
    color, title, _ = STYLE[result.status.value]
    yield Rule(title, style=f"{color} bold")
    for step in result.steps:
        yield from _step_lines(step, color)
    yield Rule("Trace", style=f"{color} bold")
    trace = result.final_trace
    if hasattr(trace, "__rich_console__"):
        yield from trace.__rich_console__(console, options)
    else:
        yield repr(trace)
    steps = f"{len(result.steps)} step{'s' if len(result.steps) != 1 else ''}"
    runs = f" | runs: {result.runs_executed}/{result.multiple_runs}"
    yield Rule(f"{steps} in {result.duration_ms}ms{runs}", style=f"{color} bold")


def _suite(result: SuiteResult, console: Any, options: Any) -> Iterator[Any]:
    yield Rule("Suite Results", style="bold blue")
    yield "".join(
        f"[{STYLE[r.status.value][0]}]{STYLE[r.status.value][2]}[/{STYLE[r.status.value][0]}]"
        for r in result.results
    )
    yield ""
    failing = result.failures_and_errors
    if failing:
        # GISKARD_CHECKS_MAX_REPORTED_FAILURES: at most that many detailed, then a count.
        hidden = len(failing)
        failing = failing[: max_reported_failures()]
        hidden -= len(failing)
        yield Rule("FAILURES", characters="=", style="grey50")
        for scenario in failing:
            color = STYLE[scenario.status.value][0]
            yield Panel(
                scenario, title=escape(scenario.scenario_name), border_style=f"{color} bold"
            )
        yield Rule("SUMMARY", characters="=", style="grey50")
        for scenario in failing:
            color = STYLE[scenario.status.value][0]
            yield (
                f"[{color} bold]{escape(scenario.scenario_name)}[/{color} bold]\t"
                f"[{color}]{scenario.status.value.upper()}[/{color}]"
            )
            for step in scenario.failures_and_errors:
                for index, check in enumerate(step.results):
                    if check.failed or check.errored:
                        name = step.check_names[index] if index < len(step.check_names) else None
                        yield from (f"\t{line}" for line in _check(check, name))
        if hidden:
            yield f"  ... and {hidden} more"
    yield Rule(style="bold blue")
    counts = {
        "error": result.errored_count,
        "fail": result.failed_count,
        "skip": result.skipped_count,
        "pass": result.passed_count,
    }
    total = f"[bold]{len(result.results)} total[/bold]"
    summary = ", ".join(part for part in (total, _counts(counts)) if part)
    rate = f"{result.pass_rate:.1%}" if result.pass_rate is not None else "—"
    yield (
        f"Summary: {summary} | Pass Rate: [bold]{rate}[/bold] | "
        f"Total Duration: {result.duration_ms}ms"
    )


def _group_table(grouped: GroupedSuiteResult) -> Table:
    key = escape(grouped.key)
    table = Table(title=f"Results by {key}")
    table.add_column(key, style="bold")
    table.add_column("Pass Rate", justify="right")
    for value, stats in grouped.groups.items():
        shown = "(untagged)" if value is None else "true" if value == "" else escape(value)
        rate = f"{stats.passed} / {stats.non_skipped}" if stats.pass_rate is not None else "—"
        table.add_row(shown, rate)
    return table


def _recommendation(text: str | None) -> Iterator[Any]:
    if text and text.strip():
        yield Panel(Markdown(text), title="Recommendation", border_style="blue")
