"""Where run results and outline entries point: a scenario's steps and their heads."""

from __future__ import annotations

from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Position, Range
from checkspec.server.analysis.places import head_of, step_head, step_nodes, within
from tests.support.analysis import dedent

SCENARIO = dedent(
    """
    name: two steps
    steps:
      - interacts:
          - inputs: a
        checks: []
      - checks: []
        interacts:
          - inputs: b
    """
)


def entry_of(text: str, name: str = "t.scenario.yaml"):
    return analyze(text, name, None).scenarios[0]


def test_steps_and_their_heads_are_their_first_keys() -> None:
    entry = entry_of(SCENARIO)
    assert [n.range.start.line for n in step_nodes(entry)] == [2, 5]
    assert step_head(entry, 0) == Range(Position(2, 4), Position(2, 13))
    assert step_head(entry, 1) == Range(Position(5, 4), Position(5, 10))


def test_a_step_that_is_not_there_points_at_the_scenario_name() -> None:
    entry = entry_of(SCENARIO)
    assert step_head(entry, 2) == entry.head == Range(Position(0, 6), Position(0, 15))
    assert step_head(entry, -1) == entry.head


def test_dataset_records_have_interactions_for_steps() -> None:
    text = dedent(
        """
        name: faq
        scenarios:
          - interactions:
              - input: hi
                checks: [{identifier: string_matching, params: {keyword: hi}}]
              - input: again
        """
    )
    entry = entry_of(text, "f.dataset.yaml")
    assert [n.range.start.line for n in step_nodes(entry)] == [3, 5]
    assert step_head(entry, 1) == Range(Position(5, 8), Position(5, 13))


def test_steps_that_are_not_a_list_or_a_scenario_that_is_not_a_mapping() -> None:
    assert step_nodes(entry_of("name: x\nsteps: {a: 1}\n")) == []
    assert step_nodes(entry_of("name: x\n")) == []
    suite = analyze("name: s\nscenarios:\n  - just text\n", "s.suite.yaml", None)
    entry = suite.scenarios[0]
    assert step_nodes(entry) == []
    assert step_head(entry, 0) == entry.head


def test_a_key_merged_from_an_anchor_is_not_the_head() -> None:
    text = dedent(
        """
        name: x
        base: &base {inputs: a}
        steps:
          - interacts:
              - <<: *base
                outputs: b
        """
    )
    document = analyze(text, "t.scenario.yaml", None)
    mapping = document.source.root.find(["steps", 0, "interacts", 0])
    assert head_of(mapping) == Range(Position(5, 8), Position(5, 15))  # `outputs`, not `inputs`
    only_merged = analyze("a: &a {x: 1}\nb:\n  <<: *a\n", "t.scenario.yaml", None)
    node = only_merged.source.root.find(["b"])
    assert head_of(node) == Range(node.range.start, node.range.start)
    scalar = only_merged.source.root.find(["a", "x"])
    assert head_of(scalar) == Range(scalar.range.start, scalar.range.start)


def test_within_keeps_an_inner_range_or_falls_back_to_the_start() -> None:
    outer = Range(Position(1, 0), Position(3, 0))
    inner = Range(Position(1, 2), Position(1, 5))
    assert within(inner, outer) == inner
    assert within(outer, outer) == outer
    assert within(Range(Position(0, 9), Position(1, 1)), outer) == Range(outer.start, outer.start)
    assert within(Range(Position(2, 0), Position(3, 1)), outer) == Range(outer.start, outer.start)
