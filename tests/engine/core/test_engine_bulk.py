"""Scenario.model_validate's bulk validator (engine/core/bulk.py) builds what the model's
own validator builds, and leaves every error to it."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from bench.workload import make_workload
from checkspec.engine import Check, Scenario
from checkspec.engine.checks import Equals
from checkspec.engine.core.check import KindModel
from checkspec.engine.scenarios.scenario import _BULK
from tests.support.paths import conformance_cases


def _own(data: Any) -> Any:
    """What Scenario's own validator makes of `data` (the instance or the errors)."""
    try:
        return Scenario.__pydantic_validator__.validate_python(data)
    except ValidationError as exc:
        return exc


def _same(made: Any, reference: Any) -> None:
    """The same model tree: classes, fields, fields sets, private and extra values."""
    assert type(made) is type(reference)
    if isinstance(made, BaseModel):
        assert made.model_fields_set == reference.model_fields_set
        assert made.__pydantic_private__ == reference.__pydantic_private__
        assert made.__pydantic_extra__ == reference.__pydantic_extra__
        assert list(made.__dict__) == list(reference.__dict__)
        for name, value in made.__dict__.items():
            _same(value, reference.__dict__[name])
    elif isinstance(made, list):
        assert len(made) == len(reference)
        for item, other in zip(made, reference, strict=True):
            _same(item, other)
    else:
        assert made == reference


def _check_scenarios() -> list[dict[str, Any]]:
    """Every check of the conformance corpus in a scenario, and the corpus's scenarios."""
    scenarios = [case["scenario"] for case in conformance_cases("scenarios.jsonl")]
    for case in conformance_cases("checks.jsonl"):
        scenarios.append(
            {
                "name": str(case.get("id", "case")),
                "steps": [
                    {
                        "interacts": [{"inputs": "q", "outputs": {"answer": "a"}}],
                        "checks": [copy.deepcopy(case["check"])],
                    }
                ],
            }
        )
    return scenarios


def test_model_validate_builds_what_the_own_validator_builds() -> None:
    scenarios = [*make_workload(60), *_check_scenarios()]
    taken = 0
    for data in scenarios:
        reference = _own(copy.deepcopy(data))
        bulk = _BULK.validate(copy.deepcopy(data))
        if bulk is not None:
            taken += 1
            _same(bulk, reference)
        made: Any
        try:
            made = Scenario.model_validate(copy.deepcopy(data))
        except ValidationError as exc:
            made = exc
        if isinstance(reference, ValidationError):
            assert bulk is None
            assert isinstance(made, ValidationError)
            assert made.errors(include_url=False, include_context=False) == reference.errors(
                include_url=False, include_context=False
            )
            assert str(made) == str(reference)
        else:
            _same(made, reference)
    assert taken >= 60  # the workload at least went through the bulk validator


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["steps"][0]["checks"][0].update(kind=b"string_matching"),
        lambda d: d["steps"][0]["checks"][0].pop("kind"),
        lambda d: d["steps"][0]["checks"][0].update(kind="no_such_kind"),
        lambda d: d["steps"][0]["checks"][0].update(kind=None),
        lambda d: d["steps"][0]["checks"][0].update(key=d["steps"][0]["checks"][0]["target_key"]),
        lambda d: d["steps"][0]["checks"][0].update(text_key="trace.last.inputs"),
        lambda d: d["steps"][0]["checks"][0].update(target_key="last.outputs"),
        lambda d: d["steps"][0]["checks"][1].update(pattern=5),
        lambda d: d["steps"][0]["checks"][4]["checks"][1]["check"].update(kind="all_of"),
        lambda d: d["steps"][0]["interacts"][0].pop("kind"),
        lambda d: d["steps"][0]["interacts"][0].update(kind="with_spy"),
        lambda d: d["steps"][0].update(extra=1),
        lambda d: d.update(multiple_runs=True),
        lambda d: d["steps"][0]["checks"].append(Equals(expected_value=1)),
        lambda d: d["steps"].append(copy.deepcopy(d["steps"][0])),
    ],
)
def test_unusual_input_gets_the_own_validators_answer(change: Any) -> None:
    data = make_workload(1)[0]
    change(data)
    reference = _own(copy.deepcopy(data))
    try:
        made: Any = Scenario.model_validate(data)
    except ValidationError as exc:
        assert isinstance(reference, ValidationError)
        assert exc.errors(include_url=False, include_context=False) == reference.errors(
            include_url=False, include_context=False
        )
    else:
        _same(made, reference)


def test_checks_are_dispatched_without_the_python_wrap() -> None:
    import sys

    dispatch = KindModel._dispatch_kind.__func__.__code__  # type: ignore[attr-defined]  # noqa: SLF001 (the wrap this module avoids)
    calls: list[Any] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code is dispatch:
            calls.append(frame)

    data = make_workload(3)
    Scenario.model_validate(copy.deepcopy(data[0]))  # the bulk validator made first
    sys.setprofile(profile)
    try:
        built = [Scenario.model_validate(d) for d in data]
        assert not calls
        Scenario.__pydantic_validator__.validate_python(data[0])  # the own validator's wrap
    finally:
        sys.setprofile(None)
    assert all(type(s) is Scenario for s in built)
    assert len(calls) == 9  # 8 checks (2 nested) and the interaction


def test_a_kind_registered_later_is_validated_and_one_unregistered_is_not() -> None:
    data = make_workload(1)[0]
    Scenario.model_validate(data)
    made_before = _BULK._copy  # noqa: SLF001 (this module's own subject)

    @Check.register("bulk_test_kind")
    class BulkTestKind(Check):
        value: int = 0

    try:
        data["steps"][0]["checks"].append({"kind": "bulk_test_kind", "value": 3})
        scenario = Scenario.model_validate(copy.deepcopy(data))
        assert _BULK._copy is not made_before  # noqa: SLF001 (remade for the new kind)
        assert _BULK.validate(copy.deepcopy(data)) is not None
        assert type(scenario.steps[0].checks[-1]) is BulkTestKind
        assert scenario.steps[0].checks[-1].value == 3
    finally:
        Check.unregister("bulk_test_kind")
    assert _BULK.validate(copy.deepcopy(data)) is None
    with pytest.raises(ValidationError, match="unknown kind 'bulk_test_kind'"):
        Scenario.model_validate(data)


def test_a_subclass_and_options_use_the_own_validator() -> None:
    class MyScenario(Scenario):
        pass

    data = make_workload(1)[0]
    assert type(MyScenario.model_validate(copy.deepcopy(data))) is MyScenario
    strict = Scenario.model_validate(copy.deepcopy(data), strict=True)
    _same(strict, _own(copy.deepcopy(data)))
    with pytest.raises(ValidationError):
        Scenario.model_validate({**data, "name": 5})


def test_a_rebuilt_check_class_remakes_the_bulk_validator() -> None:
    from checkspec.engine.core.check import family_changes

    data = make_workload(1)[0]
    Scenario.model_validate(copy.deepcopy(data))
    made_before = _BULK._copy  # noqa: SLF001 (this module's own subject)
    changes = family_changes()
    Equals.model_rebuild(force=True)
    assert family_changes() > changes
    _same(Scenario.model_validate(copy.deepcopy(data)), _own(copy.deepcopy(data)))
    assert _BULK._copy is not made_before  # noqa: SLF001 (this module's own subject)


def test_model_rebuild_of_a_check_still_resolves_names_where_it_is_called() -> None:
    # KindModel.model_rebuild counts the change, then calls pydantic's one frame deeper.
    class Later(Check):
        thing: Thing | None = None  # defined below: resolved by the rebuild

    class Thing(Check):
        x: int = 1

    assert not Later.__pydantic_complete__
    assert Later.model_rebuild() is True
    assert Later(thing=Thing(x=2)).thing == Thing(x=2)


def test_private_attributes_are_copied_from_their_defaults_only_when_that_is_all_post_init_does() -> (
    None
):
    from pydantic import PrivateAttr

    from checkspec.engine.core.bulk import BulkValidator, _private_defaults

    class Atoms(BaseModel):
        name: str = ""
        _dirs: tuple[str, ...] = PrivateAttr(default=("a", ("b",)))
        _timeout: float | None = PrivateAttr(default=None)
        _unset: int = PrivateAttr()

    class Mutable(BaseModel):
        _seen: list[str] = PrivateAttr(default_factory=list)

    class Hooked(BaseModel):
        _dirs: tuple[str, ...] = PrivateAttr(default=())

        def model_post_init(self, context: Any, /) -> None:
            self._dirs = ("hooked",)

    post_init = Atoms.__pydantic_post_init__
    assert _private_defaults(Atoms, post_init) == {"_dirs": ("a", ("b",)), "_timeout": None}
    assert _private_defaults(Scenario, Scenario.__pydantic_post_init__) == {
        "_base_dirs": (),
        "_target_timeout": None,
    }
    assert _private_defaults(Mutable, Mutable.__pydantic_post_init__) is None
    assert _private_defaults(Hooked, Hooked.__pydantic_post_init__) is None
    # Built through the bulk path, each instance has its own dict with what pydantic gives.
    for model in (Atoms, Mutable, Hooked):
        bulk = BulkValidator(model)
        first, second = bulk.validate({}), bulk.validate({})
        reference = model.model_validate({})
        assert first.__pydantic_private__ == reference.__pydantic_private__
        assert first.__pydantic_private__ is not second.__pydantic_private__
    first, second = BulkValidator(Atoms).validate({}), BulkValidator(Atoms).validate({})
    first.__pydantic_private__["_timeout"] = 1.5
    assert second.__pydantic_private__ == {"_dirs": ("a", ("b",)), "_timeout": None}
    assert BulkValidator(Hooked).validate({}).__pydantic_private__ == {"_dirs": ("hooked",)}
    # The scenario's own, as the validator without the bulk path makes them.
    assert (
        _BULK.validate({"name": "x"}).__pydantic_private__
        == _own({"name": "x"}).__pydantic_private__
    )


def test_a_model_whose_build_is_deferred_goes_through_the_bulk_path() -> None:
    # Engine models defer their build (start-up); the copy was made from the unbuilt
    # placeholder and failed for good, so every later scenario took the slow path.
    from pydantic import ConfigDict

    from checkspec.engine.core.bulk import BulkValidator

    class Deferred(BaseModel):
        model_config = ConfigDict(defer_build=True)
        name: str = "x"

    assert not Deferred.__pydantic_complete__
    made = BulkValidator(Deferred).validate({"name": "y"})
    assert made is not None and made.name == "y"
