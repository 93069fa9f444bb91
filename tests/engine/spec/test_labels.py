"""`expect: pass | fail` on checks (issue 40 item 1): allowed only on checks that call a
model (from the check registry) and where every answer up to the check is recorded; any
other use is a located error of the analysis every front end shares."""

from __future__ import annotations

from checkspec.engine.calibrate.labels import labelled
from checkspec.engine.core.check import Check
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Severity
from tests.support.analysis import WORKSPACE, dedent

SUITE = dedent(
    """
    name: labels
    scenarios:
      - name: recorded
        steps:
          - interacts:
              - inputs: hi
                outputs: hello
            checks:
              - kind: llm_judge
                prompt: polite?
                expect: fail
              - kind: not
                check: {kind: llm_judge, prompt: rude?}
                expect: pass
              - kind: string_matching
                keyword: hello
                expect: pass
              - kind: llm_judge
                prompt: kind?
                expect: maybe
              - kind: custom_polite
                expect: fail
              - kind: not
                check: {kind: equals, expected_value: x}
                expect: pass
      - name: live
        target: python:agent:answer
        steps:
          - interacts:
              - inputs: hi
                outputs: recorded, so labels are fine
            checks:
              - kind: groundedness
                context: the policy
                expect: pass
          - interacts:
              - inputs: and then?
            checks:
              - kind: llm_judge
                prompt: polite?
                expect: pass
    """
)


def errors(text: str, name: str = "t.suite.yaml") -> list[tuple[int, int, str, str]]:
    """(1-based line, 1-based column, code, message) of each error."""
    document = analyze(text, name, WORKSPACE)
    return [
        (p.range.start.line + 1, p.range.start.character + 1, p.code, p.message)
        for p in document.all_problems
        if p.severity is Severity.ERROR
    ]


def test_each_wrong_label_is_a_located_error_and_the_right_ones_are_not() -> None:
    found = {(line, col, code) for line, col, code, _ in errors(SUITE)}
    assert found == {
        (17, 13, "label-not-allowed"),  # string_matching: computed, not judged
        (20, 21, "invalid-value"),  # expect: maybe
        (22, 13, "label-not-allowed"),  # custom_polite is a string_matching
        (25, 13, "label-not-allowed"),  # not(equals): nothing inside calls a model
        (41, 13, "label-without-recording"),  # the second step's answer is not recorded
    }, errors(SUITE)
    messages = {line: message for line, _, _, message in errors(SUITE)}
    assert "'string_matching' calls no model" in messages[17]
    assert "no check in 'not' calls a model" in messages[25]
    assert "no recorded 'outputs'" in messages[41]


def test_which_checks_may_carry_a_label_comes_from_the_registry() -> None:
    judges = {kind for kind, cls in Check.registry().items() if cls.declares_model_calls()}
    assert {"llm_judge", "groundedness", "hub_correctness", "semantic_similarity"} <= judges
    assert not judges & {"string_matching", "equals", "fn", "json_valid", "all_of"}
    assert Check.kind_class("all_of").may_call_model()  # it may hold a judge
    assert not Check.kind_class("regex_matching").may_call_model()


def test_a_dataset_label_sits_beside_identifier_and_needs_a_recorded_output() -> None:
    text = dedent(
        """
        name: faq
        input_schema: {}
        output_schema: {}
        scenarios:
          - interactions:
              - input: hi
                output: hello
                checks:
                  - identifier: llm_judge
                    expect: fail
                    params: {prompt: polite?}
                  - identifier: json_valid
                    expect: pass
              - input: and then?
                checks:
                  - identifier: llm_judge
                    expect: pass
                    params: {prompt: polite?}
        """
    )
    found = [(line, code) for line, _, code, _ in errors(text, "t.dataset.yaml")]
    assert found == [(13, "label-not-allowed"), (17, "label-without-recording")]


def test_labelled_finds_the_labels_and_calibrates_each_on_its_own_replayed_trace() -> None:
    text = dedent(
        """
        name: s
        target: python:agent:answer
        steps:
          - interacts:
              - inputs: one
                outputs: first
            checks:
              - kind: string_matching
                keyword: never
              - kind: llm_judge
                prompt: p1
                expect: fail
          - interacts:
              - inputs: two
                outputs: second
            checks:
              - kind: llm_judge
                prompt_path: prompts/tone.j2
                expect: pass
                enabled: false
              - kind: llm_judge
                prompt: p2
                expect: pass
        """
    )
    document = analyze(text, "t.scenario.yaml", WORKSPACE)
    assert not document.errors
    planned, disabled = labelled([(document, e) for e in document.scenarios])
    assert disabled == 1
    assert [(p.label.line, p.label.expect, p.label.step, p.label.index) for p in planned] == [
        (10, "fail", 0, 1),
        (21, "pass", 1, 1),
    ]
    second = planned[1].scenario
    assert second.target is None and second.replays  # the target is never called
    assert [len(step.checks) for step in second.steps] == [0, 1]  # only the labelled check
    assert second.steps[1].checks[0].prompt == "p2"
    assert planned[0].label.prompt.startswith("inline:")


def test_a_wrong_label_on_its_own_line_comes_with_a_fix_removing_it() -> None:
    from checkspec.engine.curate.edits import apply_edits
    from checkspec.engine.spec.lines import index_of

    document = analyze(SUITE, "t.suite.yaml", WORKSPACE)
    fixes = {
        p.range.start.line + 1: p for p in document.all_problems if p.code.startswith("label-")
    }
    assert {line: p.fix_title for line, p in fixes.items()} == {
        17: "Remove the label",
        22: "Remove the label",
        25: "Remove the label",
        41: "Remove the label",
    }
    (edit,) = fixes[17].fix
    lines = index_of(SUITE)
    from checkspec.engine.curate.edits import TextEdit as OffsetEdit

    start, end = lines.offset(edit.range.start), lines.offset(edit.range.end)
    fixed = apply_edits(SUITE, [OffsetEdit(start, end, edit.new_text)])
    kept = SUITE.split("\n")
    assert fixed == "\n".join(kept[:16] + kept[17:])  # line 17 alone went
    # In a flow mapping the label shares its line: no fix is offered.
    flow = "name: s\nsteps:\n  - interacts: [{inputs: a, outputs: b}]\n    checks:\n      - {kind: equals, expected_value: b, expect: pass}\n"
    (problem,) = analyze(flow, "t.scenario.yaml", WORKSPACE).errors
    assert problem.code == "label-not-allowed" and problem.fix == ()
