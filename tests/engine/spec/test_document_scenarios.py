"""What the located document builds to run: every field a file gives reaches the runnable
scenario (engine/spec/scenario_analysis.py)."""

from __future__ import annotations

from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.kinds import FileKind
from checkspec.engine.spec.workspace import Workspace
from checkspec.engine.spec.workspace_config import WorkspaceConfig
from tests.support.analysis import dedent


async def test_a_scenario_file_gives_its_description_annotations_target_and_tags() -> None:
    text = dedent(
        """
        name: annotated
        description: Reads the annotations.
        target: python:agent:answer
        tags: [a, b]
        annotations: {user: bob}
        steps:
          - interacts: [{inputs: q, outputs: r}]
            checks:
              - {kind: equals, target_key: trace.annotations.user, expected_value: bob}
        """
    )
    (entry,) = analyze(text, "t.scenario.yaml").scenarios
    scenario = entry.scenario
    assert (scenario.name, scenario.description, scenario.target) == (
        "annotated",
        "Reads the annotations.",
        "python:agent:answer",
    )
    assert scenario.tags == ["a", "b"] == entry.tags
    assert scenario.annotations == {"user": "bob"}
    replayed = await scenario.model_copy(update={"target": None}).run()
    assert replayed.passed, replayed.format_failures()


def test_a_suite_and_the_workspace_give_targets_and_tags_to_their_scenarios() -> None:
    text = dedent(
        """
        name: s
        tags: [suite]
        target: python:suite:agent
        scenarios:
          - name: inherits
            steps: []
          - name: own
            target: python:own:agent
            tags: [mine]
            steps: []
        """
    )
    inherits, own = analyze(text, "s.suite.yaml").scenarios
    assert (inherits.scenario.target, inherits.tags) == ("python:suite:agent", ["suite"])
    assert (own.scenario.target, own.tags) == ("python:own:agent", ["suite", "mine"])
    workspace = Workspace(config=WorkspaceConfig(target="python:ws:agent"))
    plain = analyze("name: x\nsteps: []\n", "t.scenario.yaml", workspace)
    assert plain.scenarios[0].scenario.target == "python:ws:agent"
    assert analyze("name: x\nsteps: []\n", "t.scenario.yaml").scenarios[0].scenario.target is None


def test_a_dataset_gives_names_tags_and_target_to_its_records() -> None:
    text = dedent(
        """
        name: faq
        target: python:agent:answer
        tags: [faq]
        scenarios:
          - interactions:
              - input: {messages: [{role: user, content: Where is my order?}]}
          - name: explicit
            tags: [one]
            interactions:
              - input: {messages: [{role: user, content: hi}]}
          - interactions:
              - input: {messages: []}
          - interactions:
              - output: {response: {role: assistant, content: x}}
        """
    )
    document = analyze(text, "f.dataset.yaml")
    first, explicit, nameless, no_input = document.scenarios
    assert first.name == "Where is my order?" and first.tags == ["faq"]
    assert first.scenario.target == "python:agent:answer"
    assert explicit.name == "explicit" and explicit.tags == ["faq", "one"]
    assert explicit.scenario.name == "explicit"
    assert nameless.name == "faq #3"
    assert [(p.code, p.message) for p in no_input.problems] == [
        ("missing-parameter", "an interaction needs an 'input'")
    ]


def test_an_oversized_jsonl_dataset_is_still_a_dataset() -> None:
    workspace = Workspace(config=WorkspaceConfig(max_dataset_file_size=10))
    document = analyze('{"interactions": []}\n', "f.dataset.jsonl", workspace)
    assert document.kind is FileKind.DATASET
    assert [p.code for p in document.problems] == ["too-large"]
    assert document.scenarios == []
