"""Analyses are reused by scenario text: a reused scenario must still point at the lines
where its text now is (engine/spec/scenario_analysis.py, `scenario_entry` and `_shifted`)."""

from __future__ import annotations

import pytest

from checkspec.engine.spec import scenario_analysis
from checkspec.engine.spec.document import analyze

SCENARIO = """\
  - name: typo
    steps:
      - interacts: [{inputs: a, outputs: b}]
        checks:
          - kind: strng_matching
            keyword: b
          - kind: string_matching
            key: trace.last.outputs
            keyword: b
"""


@pytest.fixture(autouse=True)
def empty_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scenario_analysis, "_CACHE", {})


def placed(text: str) -> list[list[tuple[int, int, str, list[int]]]]:
    """Per scenario: (line, column, code, lines of its fix) of each problem."""
    doc = analyze(text, "s.suite.yaml")
    return [
        [
            (
                p.range.start.line,
                p.range.start.character,
                p.code,
                [e.range.start.line for e in p.fix],
            )
            for p in entry.problems
        ]
        for entry in doc.scenarios
    ]


def test_the_same_scenario_twice_is_placed_twice() -> None:
    # (The first one's text runs up to the second's `-`, so it is not the same text.)
    text = "name: s\nscenarios:\n" + SCENARIO + SCENARIO
    first = [(6, 18, "unknown-kind", [6]), (9, 12, "deprecated-alias", [9])]
    second = [(15, 18, "unknown-kind", [15]), (18, 12, "deprecated-alias", [18])]
    assert placed(text) == [first, second]
    doc = analyze(text, "s.suite.yaml")
    assert [e.index for e in doc.scenarios] == [0, 1]
    assert [[c.head.start.line for c in e.checks] for e in doc.scenarios] == [[6, 8], [15, 17]]
    assert [[c.node.range.start.line for c in e.checks] for e in doc.scenarios] == [
        [6, 8],
        [15, 17],
    ]
    assert [e.range.start.line for e in doc.scenarios] == [2, 11]


def test_an_edit_above_moves_the_reused_scenario() -> None:
    before = "name: s\nscenarios:\n" + SCENARIO
    after = "name: s\ndescription: two\nextra lines: 1\nscenarios:\n" + SCENARIO
    assert placed(before) == [[(6, 18, "unknown-kind", [6]), (9, 12, "deprecated-alias", [9])]]
    assert len(scenario_analysis._CACHE) == 1  # noqa: SLF001 (a private helper's own test)
    reused = analyze(after, "s.suite.yaml")
    assert len(scenario_analysis._CACHE) == 1  # the scenario's text did not change: reused  # noqa: SLF001 (a private helper's own test)
    (entry,) = reused.scenarios
    assert [(p.range.start.line, p.code) for p in entry.problems] == [
        (8, "unknown-kind"),
        (11, "deprecated-alias"),
    ]
    assert [p.range.start.line for p in reused.all_problems if p.code == "unknown-kind"] == [8]
    assert [c.head.start.line for c in entry.checks] == [8, 10]
    assert [c.node.range.start.line for c in entry.checks] == [8, 10]  # today's nodes
    assert entry.node.range.start.line == 4 and entry.index == 0
    fixes = [e.range.start.line for p in entry.problems for e in p.fix]
    assert fixes == [8, 11]


def test_a_scenario_in_another_context_is_analysed_again() -> None:
    analyze("name: s\nscenarios:\n" + SCENARIO, "s.suite.yaml")
    analyze("name: s\ntarget: python:a:b\nscenarios:\n" + SCENARIO, "s.suite.yaml")
    assert len(scenario_analysis._CACHE) == 2  # a suite target changes what the scenario runs  # noqa: SLF001 (a private helper's own test)


ANCHORED = """\
name: s
scenarios:
  - name: defines
    steps:
      - interacts: [{inputs: a, outputs: b}]
        checks: &shared
          - kind: KIND
            keyword: b
  - name: uses
    steps:
      - interacts: [{inputs: a, outputs: b}]
        checks: *shared
"""


def _codes(text: str) -> list[list[str]]:
    return [[p.code for p in e.problems] for e in analyze(text, "s.suite.yaml").scenarios]


def test_a_scenario_holding_an_alias_follows_its_anchor_not_its_cached_text() -> None:
    # The second scenario's text is the same in both files; its checks are not.
    assert _codes(ANCHORED.replace("KIND", "string_matching")) == [[], []]
    assert _codes(ANCHORED.replace("KIND", "strng_matching")) == [
        ["unknown-kind"],
        ["unknown-kind"],
    ]
    assert _codes(ANCHORED.replace("KIND", "string_matching")) == [[], []]


def test_a_merge_key_follows_its_anchor_too() -> None:
    text = (
        ANCHORED.replace("checks: &shared\n", "checks:\n")
        .replace(
            "          - kind: KIND\n            keyword: b\n",
            "          - &base {kind: KIND, keyword: b}\n",
            1,
        )
        .replace("checks: *shared", "checks:\n          - <<: *base")
    )
    first = _codes(text.replace("KIND", "string_matching"))
    second = _codes(text.replace("KIND", "strng_matching"))
    assert first[1] == []
    assert second[1] == ["unknown-kind"]
