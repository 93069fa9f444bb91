"""`trace.` paths in the editor: reading a typed path, what may follow it, and the
recorded conversation it is resolved on (server/analysis/trace_paths.py, recorded.py)."""

from __future__ import annotations

from checkspec.engine.core.sentinel import MISSING
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.workspace import Workspace
from checkspec.engine.spec.workspace_config import WorkspaceConfig
from checkspec.server.analysis.recorded import RecordedInteraction, RecordedScenario, recorded_at
from checkspec.server.analysis.trace_paths import (
    format_name,
    keys_at,
    next_keys,
    parse_steps,
    preview,
    walk,
)
from tests.support.analysis import dedent


def test_paths_are_read_step_by_step() -> None:
    assert parse_steps("trace") == []
    assert parse_steps("trace.last.outputs") == ["last", "outputs"]
    assert parse_steps("trace.interactions[ -1 ].outputs[0]") == ["interactions", -1, "outputs", 0]
    assert parse_steps("trace.last.'a b'.\"c.d\".$x-y") == ["last", "a b", "c.d", "$x-y"]
    assert parse_steps("trace.last.''") == ["last", ""]
    assert parse_steps("last.outputs") is None
    assert parse_steps("trace.last.*") is None
    assert parse_steps("trace.last[?(@.a)]") is None
    assert parse_steps("trace..a") is None


def test_names_are_quoted_unless_plain() -> None:
    assert format_name("answer") == "answer"
    assert format_name("a-b_1") == "a-b_1"
    assert format_name("a b") == "'a b'"
    assert format_name("it's") == "'its'"
    assert format_name("1st") == "'1st'"


def test_walking_plain_data() -> None:
    data = {"a": [{"b": 1}, 2], "c": None}
    assert walk(data, ["a", 0, "b"]) == 1
    assert walk(data, ["a", -1]) == 2
    assert walk(data, ["a", -3]) is MISSING
    assert walk(data, ["a", 2]) is MISSING
    assert walk(data, ["c"]) is None
    assert walk(data, ["nope"]) is MISSING
    assert walk(data, [0]) is MISSING
    assert walk([1], ["a"]) is MISSING
    assert walk(data, []) is data
    assert keys_at({"x": 1, 2: 3, "y": 4}) == ["x", "y"]
    assert keys_at([1]) == []


def test_previews_are_one_short_line() -> None:
    assert preview({"a": 1}) == "{1 key}"
    assert preview({"a": 1, "b": 2}) == "{2 keys}"
    assert preview({}) == "{0 keys}"
    assert preview([1]) == "[1 item]"
    assert preview([]) == "[0 items]"
    assert preview("hé") == '"hé"'
    assert preview(None) == "null"
    assert preview("x" * 46) == '"' + "x" * 46 + '"'  # 48 characters: shown whole
    assert preview("x" * 47) == '"' + "x" * 46 + "…"
    assert preview("abcdef", limit=5) == '"abc…'
    assert preview(float("nan")) == "NaN"
    assert preview({1, 2}) == '"{1, 2}"'
    loop: list[object] = []
    loop.append(loop)
    assert preview((loop,)) == "([[...]],)"  # not JSON at all: its repr


def recorded(*turns: tuple[int, object], step: int | None = None) -> RecordedScenario:
    return RecordedScenario(
        interactions=tuple(
            RecordedInteraction(step=s, inputs="q", outputs=o, metadata={"m": s}) for s, o in turns
        ),
        annotations={"user": {"name": "bob"}},
        target=None,
        step=step,
    )


def names(keys: list) -> list[str]:
    return [k.name for k in keys]


def test_the_first_levels_are_the_engine_models() -> None:
    top = next_keys([], None)
    assert [(k.name, k.detail) for k in top] == [
        ("last", "the latest interaction"),
        ("interactions", "every interaction, oldest first: interactions[0], [-1]..."),
        ("annotations", "mapping"),
    ]
    assert top[0].documentation == "The most recent interaction (None before the first one)."
    assert top[2].documentation.startswith("Scenario-level annotations")
    for steps in (["last"], ["interactions", 0], ["interactions", -1]):
        fields = next_keys(steps, None)
        assert names(fields) == ["inputs", "outputs", "metadata"]
        assert {k.detail for k in fields} == {"interaction field"}
        assert fields[1].documentation == "What the agent answered."
    assert next_keys(["interactions"], None) == []
    assert next_keys(["last", "outputs"], None) == []


def test_recorded_keys_follow_the_data() -> None:
    data = recorded((0, {"a": 1, "b": {"c": 2}}), (1, {"z": [1, 2]}), step=1)
    found = next_keys(["last", "outputs"], data)
    assert [(k.name, k.detail, k.documentation) for k in found] == [
        ("z", "[2 items]", "Recorded in this scenario.")
    ]
    assert names(next_keys(["interactions", 0, "outputs"], data)) == ["a", "b"]
    assert names(next_keys(["interactions", -2, "outputs", "b"], data)) == ["c"]
    assert next_keys(["interactions", 5, "outputs"], data) == []
    assert names(next_keys(["interactions", 1, "metadata"], data)) == ["m"]
    assert names(next_keys(["annotations"], data)) == ["user"]
    assert names(next_keys(["annotations", "user"], data)) == ["name"]
    assert next_keys(["nope"], data) == []
    assert next_keys(["interactions", "x"], data) == []


def test_last_is_the_step_latest_or_any_recorded_one() -> None:
    anywhere = recorded((0, {"a": 1}), (1, MISSING), (2, {"b": 2, "a": 3}))
    assert names(next_keys(["last", "outputs"], anywhere)) == ["a", "b"]
    in_step = recorded((0, {"a": 1}), (1, {"b": 2}), step=1)
    assert names(next_keys(["last", "outputs"], in_step)) == ["b"]
    unrecorded_step = recorded((0, {"a": 1}), (1, MISSING), step=1)
    assert names(next_keys(["last", "outputs"], unrecorded_step)) == ["a"]
    assert next_keys(["last", "outputs"], recorded(step=0)) == []


def test_why_a_recorded_trace_is_not_what_a_run_sees() -> None:
    assert recorded((0, "a")).why_not_replayable() is None
    assert recorded().why_not_replayable() == "no interaction comes before this point"
    assert (
        recorded((0, "a"), (1, MISSING)).why_not_replayable()
        == "an interaction of step 2 has no recorded outputs"
    )
    spied = RecordedScenario(
        (RecordedInteraction(0, "q", "a", {}, spied=True),), {}, target=None, step=0
    )
    assert spied.why_not_replayable() == (
        "a `with_spy` interaction records its calls only when it runs"
    )
    with_target = RecordedScenario((), {}, target="python:a:b", step=None)
    assert with_target.why_not_replayable() == (
        "this scenario calls its target `python:a:b` when it runs"
    )
    trace = recorded((0, {"a": 1}), (1, MISSING)).trace()
    assert [i.outputs for i in trace.interactions] == [{"a": 1}, None]
    assert trace.annotations == {"user": {"name": "bob"}}
    assert trace.last.metadata == {"m": 1}
    assert recorded((0, MISSING)).interactions[0].as_data() == {
        "inputs": "q",
        "outputs": None,
        "metadata": {"m": 0},
    }


SUITE = dedent(
    """
    name: s
    target: python:suite:agent
    scenarios:
      - name: own target
        target: python:own:agent
        steps:
          - interacts: [{inputs: a, outputs: {x: 1}}]
      - name: suite target
        annotations: {k: v}
        steps:
          - interacts:
              - inputs: b
                outputs: {y: 2}
                metadata: {t: 1}
              - {kind: with_spy, interaction_generator: {inputs: c, outputs: {z: 3}}, target: x.y}
              - 5
          - interacts: [{inputs: d}]
          - not a step
    """
)


def test_recorded_data_of_a_suite_scenario_and_its_target() -> None:
    document = analyze(SUITE, "s.suite.yaml", None)
    own = recorded_at(document, ["scenarios", 0, "steps", 0, "checks"])
    assert own.target == "python:own:agent" and own.step == 0
    second = recorded_at(document, ["scenarios", 1, "steps", 1])
    assert second.target == "python:suite:agent" and second.step == 1
    assert second.annotations == {"k": "v"}
    assert [(i.step, i.inputs, i.outputs, i.metadata, i.spied) for i in second.interactions] == [
        (0, "b", {"y": 2}, {"t": 1}, False),
        (0, "c", {"z": 3}, {}, True),
        (1, "d", MISSING, {}, False),
    ]
    first_step = recorded_at(document, ["scenarios", 1, "steps", 0, "checks", 0])
    assert len(first_step.interactions) == 2
    anywhere = recorded_at(document, ["scenarios", 1, "name"])
    assert anywhere.step is None and len(anywhere.interactions) == 3
    assert recorded_at(document, ["name"]) is None
    assert recorded_at(document, ["scenarios", "x"]) is None
    assert recorded_at(document, ["scenarios", 7, "steps"]) is None


def test_recorded_data_of_a_dataset_and_the_workspace_target() -> None:
    text = dedent(
        """
        name: faq
        scenarios:
          - interactions:
              - input: {messages: []}
                output: {response: {content: hi}}
              - input: again
              - 7
          - just text
        """
    )
    document = analyze(text, "f.dataset.yaml", None)
    found = recorded_at(document, ["scenarios", 0, "interactions", 1, "checks"])
    assert [(i.step, i.inputs, i.outputs) for i in found.interactions] == [
        (0, {"messages": []}, {"response": {"content": "hi"}}),
        (1, "again", MISSING),
    ]
    assert found.target is None and found.annotations == {}
    workspace = Workspace(config=WorkspaceConfig(target="python:ws:agent"))
    assert recorded_at(document, ["scenarios", 0], workspace).target == "python:ws:agent"
    assert recorded_at(document, ["scenarios", 1, "x"]) is None


def test_no_recorded_data_outside_scenarios() -> None:
    config = analyze("model: x\n", "checkspec.yaml", None)
    assert recorded_at(config, ["model"]) is None
    assert recorded_at(analyze("- a\n", "t.scenario.yaml", None), [0]) is None
    assert recorded_at(analyze("a: 1\n", "notes.yaml", None), ["a"]) is None
    scenario = analyze("name: x\nsteps: 3\nannotations: [1]\n", "t.scenario.yaml", None)
    found = recorded_at(scenario, ["steps"])
    assert found.interactions == () and found.annotations == {} and found.step is None
