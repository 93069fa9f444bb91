"""Bounded analysis: node and problem caps, bounded outlines.

Times here are generous "does not hang" bounds; the measured numbers are in the README of
the issue's report, not asserted.
"""

from __future__ import annotations

import time

import pytest

from checkspec.engine import Interaction, RegexMatching, Trace
from checkspec.engine.core.jsonpath import JSONPathError, compile_path, resolve
from checkspec.engine.llm.prompts import PromptError, render_prompt, template_syntax_location
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import (
    MAX_PROBLEMS,
    Position,
    Problem,
    Range,
    Severity,
    shown_problems,
)
from checkspec.engine.spec.source import MAX_NODES, parse_jsonl_lines, parse_source
from checkspec.server.analysis.symbols import MAX_SYMBOLS, SymbolRole, document_symbols


def steps_list(count: int) -> str:
    return "name: big\nsteps: [" + ", ".join(["1"] * count) + "]\n"


def test_a_list_of_far_more_than_the_node_limit_is_refused_at_once() -> None:
    started = time.perf_counter()
    document = analyze(steps_list(2 * MAX_NODES + 100), "big.scenario.yaml")
    assert time.perf_counter() - started < 20  # measured: ~0.2 s
    (problem,) = document.all_problems
    assert problem.code == "too-many-nodes"
    assert problem.range == Range.point(0, 0)
    assert f"more than {MAX_NODES:,} YAML nodes" in problem.message


def test_the_node_limit_is_found_where_it_is_crossed() -> None:
    text = "a: 1\nb: [x, x, x, x]\n"  # mapping, a, 1, b, list, then the items
    src = parse_source(text, max_nodes=6)
    assert src.root is None
    (problem,) = src.problems
    assert problem.code == "too-many-nodes"
    assert problem.range.start == Position(1, 7)  # the second item crosses it
    assert parse_source(text, max_nodes=9).problems == []


def test_the_node_limit_bounds_a_whole_jsonl_file() -> None:
    rows, problems = parse_jsonl_lines("[1, 2]\n[3, 4]\n[5, 6]\n", max_nodes=7)
    assert len(rows) == 2
    (problem,) = problems
    assert problem.code == "too-many-nodes" and problem.range.start.line == 2
    assert "more than 7 YAML nodes" in problem.message


def test_problems_are_capped_with_one_summary_at_the_first_one_left_out() -> None:
    document = analyze(steps_list(5000), "big.scenario.yaml")
    problems = document.all_problems
    assert len(problems) == MAX_PROBLEMS + 1
    assert len(document.every_problem()) == 5000
    summary = problems[-1]
    assert summary.code == "more-problems" and summary.severity is Severity.ERROR
    assert summary.message == "… and 4,000 more problems in this file (the first 1,000 are shown)"
    assert summary.range == document.every_problem()[MAX_PROBLEMS].range
    assert problems[:-1] == sorted(problems[:-1], key=lambda p: p.range.start)


def test_the_summary_is_as_severe_as_the_worst_problem_it_stands_for() -> None:
    def at(line: int, severity: Severity) -> Problem:
        return Problem("x", "m", Range.point(line, 0), severity)

    found = [at(0, Severity.ERROR), at(1, Severity.WARNING), at(2, Severity.HINT)]
    assert shown_problems(found, limit=1)[-1].severity is Severity.WARNING
    assert [p.range.start.line for p in shown_problems(found[::-1], limit=2)] == [0, 1, 2]
    assert shown_problems(found, limit=3) == found


def test_document_symbols_are_bounded() -> None:
    text = "name: s\nsteps:\n" + "  - checks: [{kind: equals, expected_value: 1}]\n" * 3000
    (scenario,) = document_symbols(analyze(text, "big.scenario.yaml"))
    flat = [scenario, *scenario.children, *(c for s in scenario.children for c in s.children)]
    assert sum(s.role is not SymbolRole.MORE for s in flat) == MAX_SYMBOLS
    more = scenario.children[-1]
    assert more.role is SymbolRole.MORE and more.name == "… 2,000 more steps"
    assert more.range.start == Position(1002, 4)  # at the first step left out


def test_a_bug_in_the_analysis_is_a_problem_at_the_file_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(self: RegexMatching) -> list[object]:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(RegexMatching, "lint", broken)
    text = "name: s\nsteps:\n  - checks: [{kind: regex_matching, pattern: a}]\n"
    document = analyze(text, "s.scenario.yaml")
    (problem,) = document.all_problems
    assert problem.code == "internal-error" and problem.range == Range.point(0, 0)
    assert "RecursionError: maximum recursion depth exceeded" in problem.message
    assert isinstance(document.failure, RecursionError)


def test_jsonpaths_are_capped_before_anything_recurses_on_them() -> None:
    deep = "trace.last.outputs" + "[0]" * 98  # 100 steps: the most a selector may have
    value: object = "x"
    for _ in range(98):
        value = [value]
    assert resolve(Trace(interactions=[Interaction(inputs="q", outputs=value)]), deep) == "x"
    with pytest.raises(JSONPathError, match="it has 101 steps, more than the 100"):
        compile_path(deep + "[0]")


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{{ " + "(" * 31 + "1" + ")" * 31 + " }}", "brackets are nested more than 30 deep"),
        ("{% if 1 %}" * 31 + "{% endif %}" * 31, "blocks are nested more than 30 deep"),
        ("{{ " + "+".join(["1"] * 102) + " }}", "chains more than 100 operators or filters"),
        ("a\n{{ x" + ".a" * 101 + " }}", "chains more than 100 operators or filters"),
    ],
)
def test_templates_are_capped_before_jinja_recurses_on_them(template: str, message: str) -> None:
    found = template_syntax_location(template)
    assert found is not None and message in found[0]
    assert found[1] == template.count("\n") + 1
    with pytest.raises(PromptError, match=message):
        render_prompt(template, {"x": {}})
