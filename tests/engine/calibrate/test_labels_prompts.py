"""Which prompt judges each label (a prompt file, an inline prompt's digest, the kind's
built-in template, the first judge inside a composition), the labels a second prompt
applies to, a scenario that does not load being passed over, and when a scenario's
answers are recorded enough to be labelled."""

from __future__ import annotations

import hashlib

from checkspec.engine import DatasetInputGenerator, Interact, Scenario
from checkspec.engine.calibrate.labels import (
    labelled,
    labels_of,
    prompt_of,
    recorded_up_to,
    with_prompt,
)
from checkspec.engine.core.check import Check
from checkspec.engine.scenarios.scenario import Step
from checkspec.engine.spec.document import analyze

SUITE = """\
name: s
scenarios:
  - name: by_path
    steps:
      - interacts: [{inputs: q, outputs: a}]
        checks:
          - {kind: llm_judge, prompt_path: judge.j2, expect: pass}
  - name: builtin
    steps:
      - interacts: [{inputs: q, outputs: a}]
        checks:
          - {kind: hub_correctness, reference: r, expect: fail}
  - name: nested
    steps:
      - interacts: [{inputs: q, outputs: a}]
        checks:
          - kind: all_of
            expect: fail
            checks:
              - {kind: equals, expected_value: a}
              - {kind: llm_judge, prompt: 'inner {{ trace.last.outputs }}'}
  - name: broken
    steps: 5
"""


def test_each_label_names_the_prompt_that_judges_it() -> None:
    document = analyze(SUITE, "t.suite.yaml")
    assert [p.format("t") for p in document.errors] == ["t:23:12: error: steps must be a list"]
    planned, disabled = labelled([(document, e) for e in document.scenarios])
    assert disabled == 0
    # The broken scenario does not load: passed over, the others calibrated.
    digest = hashlib.sha256(b"inner {{ trace.last.outputs }}").hexdigest()[:8]
    assert [(p.label.scenario, p.label.kind, p.label.prompt, p.label.line) for p in planned] == [
        ("by_path", "llm_judge", "judge.j2", 7),
        ("builtin", "hub_correctness", "built-in", 12),
        ("nested", "all_of", f"inline:{digest}", 17),
    ]
    labels = labels_of(planned)
    assert [label.identity for label in labels] == [
        "t.suite.yaml::by_path",
        "t.suite.yaml::builtin",
        "t.suite.yaml::nested",
    ]
    assert [label.expect for label in labels] == ["pass", "fail", "fail"]


def test_a_second_prompt_applies_to_the_checks_that_take_a_prompt() -> None:
    document = analyze(SUITE, "t.suite.yaml")
    planned, _ = labelled([(document, e) for e in document.scenarios])
    (second,) = with_prompt(planned, "/abs/other.j2")
    assert second.label.scenario == "by_path" and second.label.prompt == "/abs/other.j2"
    (check,) = second.scenario.steps[-1].checks
    assert (check.prompt_path, check.prompt) == ("/abs/other.j2", None)
    assert planned[0].scenario.steps[-1].checks[0].prompt_path == "judge.j2"  # kept


def test_a_check_calling_no_model_is_judged_by_no_prompt_of_its_own() -> None:
    negation = Check.model_validate(
        {"kind": "not", "check": {"kind": "equals", "expected_value": "a"}}
    )
    assert prompt_of(negation) == "built-in"


def one_step(spec: Interact) -> Scenario:
    return Scenario(name="x", steps=[Step(interacts=[spec], checks=[])])


def test_a_label_needs_fixed_inputs_and_recorded_answers() -> None:
    assert recorded_up_to(one_step(Interact(inputs="q", outputs="a")), 0)
    assert not recorded_up_to(one_step(Interact(inputs="q")), 0)
    assert recorded_up_to(one_step(Interact(inputs="q")), 0, outputs=False)  # a run records it
    assert not recorded_up_to(one_step(Interact(inputs="q", outputs=lambda i: "a")), 0)
    generated = Interact(inputs=DatasetInputGenerator(prompt="p"), outputs="a")
    assert not recorded_up_to(one_step(generated), 0, outputs=False)
    assert not recorded_up_to(one_step(Interact(inputs=lambda t: "q", outputs="a")), 0)
