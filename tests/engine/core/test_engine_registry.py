"""The check registry and kind dispatch (engine/core/check.py): what validation says about
kinds, the deprecated selector names, dataset defaults and the names results show."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from checkspec.engine import AllOf, Check, Equals, StringMatching, Trace
from checkspec.engine.core.check import DATASET_TEXT_KEY, KindModel, did_you_mean
from checkspec.engine.interactions import Interact, InteractionSpec


def error_of(cls: type[Any], data: Any) -> dict[str, Any]:
    with pytest.raises(ValidationError) as info:
        cls.model_validate(data)
    (error,) = info.value.errors()
    return {"type": error["type"], "msg": error["msg"], "loc": error["loc"]}


def test_kind_errors_say_what_is_wrong() -> None:
    assert error_of(Check, {"keyword": "a"}) == {
        "type": "missing_kind",
        "msg": "a 'kind' is required",
        "loc": (),
    }
    assert error_of(Check, {"kind": "string_matchng", "keyword": "a"}) == {
        "type": "unknown_kind",
        "msg": "unknown kind 'string_matchng'; did you mean 'string_matching'?",
        "loc": (),
    }
    assert error_of(Check, {"kind": "zzz"})["msg"] == "unknown kind 'zzz'"
    assert error_of(Check, {"kind": 3})["msg"] == "unknown kind '3'"
    assert error_of(AllOf, {"kind": "equals", "expected_value": 1}) == {
        "type": "kind_mismatch",
        "msg": "kind 'equals' is not a AllOf",
        "loc": (),
    }


def test_a_registered_class_is_its_own_default_kind() -> None:
    assert Equals.model_validate({"expected_value": 1}).kind == "equals"
    assert type(Check.model_validate({"kind": "equals", "expected_value": 1})) is Equals
    assert Interact.model_validate({"inputs": "q"}).kind == "interact"
    assert type(InteractionSpec.model_validate({"inputs": "q"})) is Interact


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "equals", "expected_value": 1, "key": "trace.last.outputs.a"},
        {"kind": "string_matching", "keyword": "a", "text_key": "trace.last.inputs"},
        {"kind": "string_matching", "keyword": "a", "target_key": "trace.last.inputs"},
        {
            "kind": "all_of",
            "checks": [
                {
                    "kind": "not",
                    "check": {"kind": "equals", "key": "trace.last", "expected_value": 2},
                }
            ],
        },
    ],
)
def test_validating_through_the_family_root_or_the_class_gives_the_same_check(
    data: dict[str, Any],
) -> None:
    through_root = Check.model_validate(data)
    cls = Check.registry()[data["kind"]]
    assert through_root == cls.model_validate(data)
    assert "key" not in through_root.model_dump() and "text_key" not in through_root.model_dump()


def test_deprecated_selector_names_are_renamed_once() -> None:
    assert (
        Check.model_validate({"kind": "equals", "key": "trace.x", "expected_value": 1}).target_key
        == "trace.x"
    )
    both = error_of(
        Check, {"kind": "string_matching", "keyword": "a", "key": "trace.a", "text_key": "trace.b"}
    )
    assert both["type"] == "duplicate_target_key"
    assert (
        both["msg"] == "give the selector once: key, text_key are the same field (use 'target_key')"
    )
    with_target = error_of(Equals, {"expected_value": 1, "target_key": "trace.a", "key": "trace.b"})
    assert with_target["msg"] == (
        "give the selector once: target_key, key are the same field (use 'target_key')"
    )


def test_registering_a_kind_twice_is_refused() -> None:
    registry = Check.registry()
    try:
        with pytest.raises(ValueError) as info:

            @Check.register("equals")
            class Other(Check):
                async def run(self, trace: Trace) -> Any:
                    raise AssertionError

        assert str(info.value).startswith("kind 'equals' is already registered by ")
        assert Check.kind_class("equals") is Equals
    finally:
        assert Check.registry() == registry  # the refused class was never recorded


def test_the_registry_is_a_copy_in_registration_order() -> None:
    registry = Check.registry()
    assert list(registry)[:3] == ["string_matching", "regex_matching", "equals"]
    registry.pop("equals")
    assert "equals" in Check.registry()
    assert Equals.kind_name() == "equals" and Check.kind_name() is None
    assert KindModel.kind_name() is None
    assert set(InteractionSpec.registry()) == {"interact", "with_spy"}


def test_dataset_defaults_point_checks_at_the_message_text() -> None:
    assert StringMatching.dataset_defaults() == {"target_key": DATASET_TEXT_KEY}
    assert Check.registry()["greater_than"].dataset_defaults() == {
        "target_key": "trace.last.outputs.metadata.score"
    }
    assert AllOf.dataset_defaults() == {}


def test_results_name_a_check_by_its_name_or_its_kind() -> None:
    assert Equals(expected_value=1, name="exact").display_name == "exact"
    assert Equals(expected_value=1).display_name == "equals"


async def test_a_check_without_run_says_so() -> None:
    class Unfinished(Check):
        pass

    unfinished = Unfinished.model_construct()  # not registered: no kind to validate with
    with pytest.raises(NotImplementedError) as info:
        await unfinished.run(Trace())
    assert str(info.value) == "Unfinished.run is not implemented"
    assert unfinished.display_name == "Unfinished"
    assert unfinished.lint() == []


def test_did_you_mean_only_suggests_close_names() -> None:
    assert did_you_mean("equal", ["equals", "not_equals"]) == "equals"
    assert did_you_mean("xyz", ["equals"]) is None
    assert did_you_mean("a", []) is None
