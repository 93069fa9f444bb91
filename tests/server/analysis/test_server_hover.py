"""Hover in the analysis layer: every kind of place, and what it says when it cannot help."""

from __future__ import annotations

from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Position
from checkspec.server.analysis.hover import _MAX_SHOWN, _shown, hover
from tests.support.analysis import SCENARIO, WORKSPACE, dedent, hover_at, pos


def hover_or_none(text: str, where: Position, name: str = "t.scenario.yaml") -> str | None:
    found = hover(analyze(text, name, WORKSPACE), where, WORKSPACE)
    return None if found is None else found.markdown


def test_nothing_is_shown_off_the_document_or_outside_spec_files() -> None:
    assert hover_or_none(SCENARIO, Position(200, 0)) is None  # past the end
    assert hover_or_none("# just a comment\n", Position(0, 3)) is None
    assert hover_or_none(SCENARIO, pos(SCENARIO, "refund", 1), "notes.yaml") is None
    assert hover_or_none("", Position(0, 0)) is None


def test_nothing_is_shown_on_unknown_keys_and_unknown_kinds() -> None:
    text = SCENARIO.replace("keyword: 30-day", "keywrd: 30-day")
    assert hover_or_none(text, pos(text, "keywrd", 1)) is None
    unknown = SCENARIO.replace("kind: equals", "kind: no_such_check")
    assert hover_or_none(unknown, pos(unknown, "no_such_check", 1)) is None
    # under an unknown key nothing is known either
    nested = SCENARIO.replace("annotations: {user: bob}", "mystery: {deeper: [1, 2]}")
    assert hover_or_none(nested, pos(nested, "deeper", 1)) is None
    assert hover_or_none(nested, pos(nested, "1, 2", 0)) is None


def test_a_list_item_that_is_not_a_scalar_is_not_explained() -> None:
    text = dedent(
        """
        name: x
        steps:
          - checks:
              - kind: toxicity
                categories: [{not: scalar}]
        """
    )
    assert hover_or_none(text, pos(text, "not: scalar", 1)) is None


def test_an_invalid_jsonpath_says_why_before_the_parameter_docs() -> None:
    text = SCENARIO.replace("target_key: trace.last.outputs.answer", "target_key: trace.[[")
    shown = hover_at(text, "trace.[[")
    assert shown.startswith("Not a valid JSONPath: ")
    assert "\n\n---\n\n**target_key**" in shown


def test_a_path_is_resolved_on_the_step_it_is_written_in() -> None:
    shown = hover_at(SCENARIO, "trace.last.outputs.verdict")
    assert shown.startswith(
        "`trace.last.outputs.verdict` on the recorded trace of step 2 (replayed):\n\n"
        "```json\ntrue\n```"  # YAML's `yes` is a boolean
    )


def test_a_path_into_a_list_shows_the_keys_where_it_stops_matching() -> None:
    shown = hover_at(
        SCENARIO.replace("trace.last.outputs.nope", "trace.interactions[0].outputs.details.nope"),
        "trace.interactions[0].outputs.details.nope",
    )
    assert shown.startswith(
        "`trace.interactions[0].outputs.details.nope` matches nothing in the recorded trace "
        "of step 1. `trace.interactions[0].outputs.details` has: `days`."
    )


def test_a_path_with_nothing_to_list_says_only_that_it_matches_nothing() -> None:
    text = SCENARIO.replace("trace.last.outputs.nope", "trace.nope")
    shown = hover_at(text, "trace.nope")
    assert shown.startswith("`trace.nope` matches nothing in the recorded trace of step 1.\n\n---")


def test_values_are_shown_as_json_and_long_ones_are_cut() -> None:
    assert _shown({"a": [1, "é"]}) == '{\n  "a": [\n    1,\n    "é"\n  ]\n}'
    assert _shown({1, 2}) == '"{1, 2}"'  # not JSON: as text
    loop: list[object] = []
    loop.append(loop)
    assert _shown(loop) == "[[...]]"  # not even that: its repr, not an error
    cut = _shown("x" * 5000)
    assert len(cut) == _MAX_SHOWN + 2 and cut.endswith("xxx\n…")
    exact = _shown("y" * (_MAX_SHOWN - 2))
    assert exact == '"' + "y" * (_MAX_SHOWN - 2) + '"'
