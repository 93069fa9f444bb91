"""engine/core: selectors, traces, results and the fast constructor keep their promises.

The fast paths (the direct walk of simple selectors, `Trace.to_data`, `construct`) are
checked against the general machinery they stand in for: jsonpath-ng on the dumped
trace, `model_dump`, `model_construct`.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, PrivateAttr

from checkspec.engine import CheckResult, Interaction, Trace
from checkspec.engine.core.construct import construct, field_count
from checkspec.engine.core.jsonpath import NoMatch, compile_path, resolve
from checkspec.engine.core.result import TestCaseError, TestCaseResult
from checkspec.engine.scenarios.scenario import Scenario


class Tool(BaseModel):
    name: str
    args: dict[str, Any] = {}


TRACE = Trace(
    interactions=[
        Interaction(inputs="first", outputs={"a": [1, {"b": 2}], "tool": Tool(name="t")}),
        Interaction(
            inputs={"q": "second"},
            outputs={"answer": "yes", "n": None, "list": [10, 20, 30]},
            metadata={"latency": 3},
        ),
    ],
    annotations={"user": "bob"},
)

PATHS = [
    "trace.last.outputs",
    "trace.last.outputs.answer",
    "trace.last.outputs.n",
    "trace.last.outputs.list[1]",
    "trace.last.outputs.list[-1]",
    "trace.last.outputs.list[7]",
    "trace.last.outputs.nope",
    "trace.last.outputs.answer.deeper",
    "trace.last.metadata.latency",
    "trace.last.inputs.q",
    "trace.interactions[0].outputs.a[1].b",
    "trace.interactions[0].outputs.tool",
    "trace.interactions[0].outputs.tool.name",
    "trace.interactions[0].outputs.tool.missing",
    "trace.interactions[5].outputs",
    "trace.interactions[0].inputs[0]",
    "trace.annotations.user",
    "trace.annotations",
    "trace.last",
    "trace.nope",
    "trace.interactions[*].outputs",
    "trace.interactions[0,1].inputs",
    "trace.interactions[0,5].inputs",
    "trace.interactions[4,5].inputs",
    "trace.last.outputs.list[0:2]",
    "trace..answer",
    "trace.interactions[*].outputs.answer",
]


def general(trace: Trace, path: str) -> Any:
    """What jsonpath-ng gives on the dumped trace, with the engine's list/NoMatch rules."""
    compiled = compile_path(path)
    matches = compiled.expression.find({"trace": trace.model_dump()})
    if len(matches) > 1 or compiled.is_list:
        return [m.value for m in matches]
    return matches[0].value if matches else NoMatch(path)


@pytest.mark.parametrize("path", PATHS)
def test_every_way_of_resolving_a_path_agrees_with_jsonpath_ng(path: str) -> None:
    expected = general(TRACE, path)
    assert resolve(TRACE, path) == expected
    assert compile_path(path).find(TRACE) == expected


def test_multi_match_paths_are_lists_and_single_ones_are_values() -> None:
    assert resolve(TRACE, "trace.interactions[0,5].inputs") == "first"
    assert resolve(TRACE, "trace.interactions[0,1].inputs") == ["first", {"q": "second"}]
    assert resolve(TRACE, "trace.interactions[*].outputs.answer") == ["yes"]
    assert resolve(TRACE, "trace.interactions[4,5].inputs") == NoMatch(
        "trace.interactions[4,5].inputs"
    )
    assert resolve(TRACE, "trace.interactions[0].outputs.tool") == {"name": "t", "args": {}}
    assert resolve(Trace(), "trace.last.outputs") == NoMatch("trace.last.outputs")


def test_no_match_compares_by_key_and_names_it() -> None:
    a, b = NoMatch("trace.a"), NoMatch("trace.b")
    assert a == NoMatch("trace.a") and a != b and a != "trace.a"
    assert {a, NoMatch("trace.a"), b} == {a, b}
    assert hash(a) == hash(NoMatch("trace.a"))
    assert str(a) == "No match for key: trace.a"
    assert repr(a) == "NoMatch(key='trace.a')"


def test_to_data_is_the_dump_jsonpath_sees() -> None:
    for trace in (TRACE, Trace(), Trace(interactions=[Interaction(inputs=1, outputs=None)])):
        assert trace.to_data() == trace.model_dump()
    assert TRACE.to_data()["last"] == {
        "inputs": {"q": "second"},
        "outputs": {"answer": "yes", "n": None, "list": [10, 20, 30]},
        "metadata": {"latency": 3},
    }
    assert Trace().to_data() == {"interactions": [], "annotations": {}, "last": None}


async def test_a_trace_grows_without_changing_the_original() -> None:
    extra = Interaction(inputs="third", outputs="ok")
    grown = await TRACE.with_interaction(extra)
    assert grown.last == extra and len(grown.interactions) == 3
    assert grown.annotations == {"user": "bob"}
    assert len(TRACE.interactions) == 2
    assert grown == Trace(interactions=[*TRACE.interactions, extra], annotations={"user": "bob"})


class Plain(BaseModel):
    a: int
    b: str = "x"


class WithPrivate(BaseModel):
    a: int
    _cache: dict[str, int] = PrivateAttr(default_factory=dict)


class WithExtra(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int


class WithPostInit(BaseModel):
    a: int

    def model_post_init(self, context: Any) -> None:
        object.__setattr__(self, "a", self.a + 1)


@pytest.mark.parametrize("cls", [Plain, WithPrivate, WithExtra, WithPostInit])
def test_construct_makes_what_model_construct_makes(cls: type[BaseModel]) -> None:
    values = {"a": 1, "b": "y"} if cls is Plain else {"a": 1}
    made = construct(cls, dict(values))
    reference = cls.model_construct(**values)
    assert type(made) is cls
    assert made.__dict__ == reference.__dict__
    assert made.model_fields_set == reference.model_fields_set
    assert made.__pydantic_extra__ == reference.__pydantic_extra__
    assert made.__pydantic_private__ == reference.__pydantic_private__
    if cls is WithPrivate:
        made._cache["k"] = 1  # a private attribute that works, as model_construct sets up  # noqa: SLF001 (a private helper's own test)
        assert made._cache == {"k": 1}  # noqa: SLF001 (a private helper's own test)


def test_construct_leaves_unset_fields_out_of_the_fields_set() -> None:
    made = construct(Plain, {"a": 1, "b": "x"}, unset=("b",))
    assert made.b == "x" and made.model_fields_set == {"a"}
    partial = construct(Plain, {"a": 2})  # a field not passed: model_construct's default
    assert partial.b == "x" and partial.model_fields_set == {"a"}


def test_field_count_tells_which_classes_construct_may_build_directly() -> None:
    assert field_count(Plain) == 2
    assert field_count(WithPrivate) == -1
    assert field_count(WithExtra) == -1
    assert field_count(WithPostInit) == -1


def step_result(*results: CheckResult, names: list[str] | None = None, **kw: Any) -> Any:
    return TestCaseResult(results=list(results), check_names=names or [], **kw)


def test_failures_are_listed_with_the_check_name_and_verb() -> None:
    step = step_result(
        CheckResult.success("fine"),
        CheckResult.failure("too short"),
        CheckResult.error(None),
        CheckResult.skip("n/a"),
        names=["a", "b", "c"],
    )
    assert step.format_failures() == [
        "b FAILED: too short",
        "c ERRORED: No specific error message provided",
        "Unknown check SKIPPED: n/a",
    ]
    with pytest.raises(AssertionError) as info:
        step.assert_passed()
    assert str(info.value) == (
        "Test case failed with the following errors:\nb FAILED: too short\n"
        "c ERRORED: No specific error message provided\nUnknown check SKIPPED: n/a"
    )
    step_result(CheckResult.success("ok")).assert_passed()


def test_a_step_error_comes_first_with_its_phase() -> None:
    error = TestCaseError.from_exception(ValueError("boom"), phase="interaction")
    assert error.summary() == "ValueError during interaction: boom"
    assert TestCaseError.from_exception(KeyError()).summary() == "KeyError: KeyError()"
    step = step_result(CheckResult.failure("no"), names=["x"], error=error)
    assert step.format_failures() == [
        "Test case ERRORED: ValueError during interaction: boom",
        "x FAILED: no",
    ]


async def test_scenario_failures_name_their_step() -> None:
    scenario = Scenario.model_validate(
        {
            "name": "two",
            "steps": [
                {"interacts": [{"inputs": "q", "outputs": "a"}], "checks": []},
                {
                    "interacts": [{"inputs": "q", "outputs": "b"}],
                    "checks": [{"kind": "string_matching", "keyword": "zz", "name": "kw"}],
                },
            ],
        }
    )
    result = await scenario.run()
    assert result.format_failures() == [
        "step 2: kw FAILED: The answer does not contain the keyword 'zz'"
    ]
    with pytest.raises(AssertionError) as info:
        result.assert_passed()
    assert str(info.value) == (
        "Scenario 'two' failed:\n  step 2: kw FAILED: The answer does not contain the keyword 'zz'"
    )


def _slot(model: BaseModel) -> Any:
    """What BaseModel's fields-set slot holds, read without the attribute."""
    return BaseModel.__dict__["__pydantic_fields_set__"].__get__(model, type(model))


def _built_by_a_run() -> list[BaseModel]:
    """A scenario result and every result, trace and interaction inside it."""
    scenario = Scenario.model_validate(
        {
            "steps": [
                {
                    "interacts": [{"inputs": "q", "outputs": {"a": "x"}}],
                    "checks": [
                        {
                            "kind": "equals",
                            "target_key": "trace.last.outputs.a",
                            "expected_value": "x",
                        },
                        {"kind": "not", "check": {"kind": "equals", "expected_value": 1}},
                    ],
                }
            ]
        }
    )
    result = scenario.run_sync()
    step = result.steps[0]
    return [result, step, *step.results, result.final_trace, *result.final_trace.interactions]


def test_results_and_traces_get_their_fields_set_when_it_is_first_read() -> None:
    from checkspec.engine.core.construct import Unread

    built = _built_by_a_run()
    assert len(built) == 6
    # Until read, the slot holds a shared immutable stand-in (no set per model)...
    assert all(type(_slot(model)) is Unread for model in built)
    first, second = built[2], built[3]
    assert _slot(first) is _slot(second)
    # ...and the first read gives the model a set of its own, kept from then on.
    fields = first.model_fields_set
    assert type(fields) is set and fields == {"status", "message", "metrics", "details"}
    assert _slot(first) is fields and first.model_fields_set is fields
    fields.add("extra-name")
    assert second.model_fields_set == {"status", "message", "metrics", "details"}
    assert type(_slot(second)) is set


def test_fields_sets_on_demand_read_as_eager_ones_everywhere() -> None:
    import copy
    import pickle

    from checkspec.engine.core.result import ScenarioResult

    for model in _built_by_a_run():
        reference = type(model).model_construct(
            _fields_set=set(model.__dict__) - {"skip_reason", "multiple_runs", "runs_executed"},
            **model.__dict__,
        )
        expected = set(reference.model_fields_set)
        assert model.model_dump(exclude_unset=True) == reference.model_dump(exclude_unset=True)
        assert model.model_fields_set == expected
        for other in (copy.copy(model), copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
            assert other == model and other.model_fields_set == expected
            assert (
                type(_slot(other)) is set and other.model_fields_set is not model.model_fields_set
            )
        last = list(type(model).model_fields)[-1]
        changed = model.model_copy(update={last: model.__dict__[last]})
        assert changed.model_fields_set == expected | {last}
        assert model.model_fields_set == expected
    # Models that pydantic-core builds get the shared stand-in of the names it gives.
    from checkspec.engine.core.construct import Unread

    result = _built_by_a_run()[0]
    rebuilt = ScenarioResult.model_validate(result.model_dump())
    assert type(_slot(rebuilt)) is Unread
    assert rebuilt.model_fields_set == set(ScenarioResult.model_fields)
    assert type(_slot(CheckResult(status="pass"))) is Unread
    assert CheckResult(status="pass").model_fields_set == {"status"}


def _built_scenario() -> Scenario:
    return Scenario.model_validate(
        {
            "name": "s",
            "steps": [
                {
                    "interacts": [{"kind": "interact", "inputs": "q", "outputs": "a"}],
                    "checks": [
                        {"kind": "equals", "expected_value": "a"},
                        {"kind": "not", "check": {"kind": "equals", "expected_value": 1}},
                    ],
                }
            ],
        }
    )


def test_built_scenarios_share_their_fields_sets_until_read() -> None:
    from checkspec.engine.core.construct import Unread

    def models(scenario: Scenario) -> list[BaseModel]:
        step = scenario.steps[0]
        return [scenario, step, step.interacts[0], *step.checks, step.checks[1].check]

    first, second = models(_built_scenario()), models(_built_scenario())
    # Scenario, step, interaction spec and checks, as the bulk validator builds them:
    # one shared stand-in per class and names given, not a set per model...
    assert all(type(_slot(model)) is Unread for model in first + second)
    assert all(_slot(a) is _slot(b) for a, b in zip(first, second, strict=True))
    assert _slot(first[3]) is _slot(first[5])  # the two `equals`, same names given
    # ...and each reads as the set pydantic would have given it, its own from then on.
    expected = [
        {"name", "steps"},
        {"interacts", "checks"},
        {"kind", "inputs", "outputs"},
        {"kind", "expected_value"},
        {"kind", "check"},
        {"kind", "expected_value"},
    ]
    assert [model.model_fields_set for model in first] == expected
    assert all(type(_slot(model)) is set for model in first)
    first[0].model_fields_set.add("tags")
    assert second[0].model_fields_set == {"name", "steps"}
    # The same through the dispatch in Python (Check.model_validate) and the validator.
    from checkspec.engine.core.check import Check

    for check in (
        Check.model_validate({"kind": "equals", "expected_value": "a"}),
        Scenario.__pydantic_validator__.validate_python({"name": "x"}),
    ):
        assert type(_slot(check)) is Unread
    assert Scenario.model_validate({"name": "x"}).model_fields_set == {"name"}


def test_fields_sets_are_shared_for_a_bounded_number_of_shapes_per_class() -> None:
    from checkspec.engine.core import construct as construct_module

    class Shapes(BaseModel):
        a: int = 0
        b: int = 0

    construct_module.fields_set_on_demand(Shapes)
    limit = construct_module.SHARED_PER_CLASS
    # Shapes() itself is the first shape (no names given), then limit - 1 more fit.
    names = [{f"x{i}"} for i in range(limit)]
    slots = []
    for given in names:
        model = Shapes()
        model.__pydantic_fields_set__ = set(given)
        slots.append(_slot(model))
    # Up to the limit each shape has its stand-in; past it a model keeps the set given.
    assert type(_slot(Shapes())) is construct_module.Unread
    assert all(type(slot) is construct_module.Unread for slot in slots[: limit - 1])
    assert type(slots[-1]) is set and slots[-1] == names[-1]
    again = Shapes()
    again.__pydantic_fields_set__ = {"x0"}
    assert _slot(again) is slots[0]


def test_normalized_texts_are_remembered_per_form_within_bounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import unicodedata

    from checkspec.engine.core import normalization

    calls: list[tuple[str, str]] = []
    original = unicodedata.normalize

    def counted(form: str, text: str) -> str:
        calls.append((form, text))
        return original(form, text)

    monkeypatch.setattr(normalization.unicodedata, "normalize", counted)
    monkeypatch.setattr(normalization, "CACHED_TEXTS", 3)
    for cache in normalization._normalized.values():  # noqa: SLF001 (the module's cache)
        cache.clear()
    text = " ﬁnal  answer, 12 km² "
    assert normalization.normalize_string(text, "NFKC") == "final answer, 12 km2"
    assert normalization.normalize_string(text, "NFKC") == "final answer, 12 km2"
    assert calls == [("NFKC", text)]  # the second time, read back
    # Each form its own; no form too.
    assert normalization.normalize_string(text, "NFC") == "ﬁnal answer, 12 km²"
    assert normalization.normalize_string(text, None) == "ﬁnal answer, 12 km²"
    assert normalization.normalize_string(text, None) == "ﬁnal answer, 12 km²"
    assert calls == [("NFKC", text), ("NFC", text)]
    # Long texts are not kept, and a full cache starts again.
    long_text = "x" * (normalization.CACHED_LENGTH + 1)
    for _ in range(2):
        assert normalization.normalize_string(long_text, "NFKC") == long_text
    assert calls[-2:] == [("NFKC", long_text)] * 2
    for word in ("a", "b", "c"):
        normalization.normalize_string(word, "NFKC")
    assert list(normalization._normalized["NFKC"]) == ["c"]  # noqa: SLF001 (the module's cache)

    # A str subclass is normalized, never looked up or kept.
    class Text(str):
        pass

    assert normalization.normalize_string(Text("c"), "NFKC") == "c"
    assert calls[-1] == ("NFKC", "c")
