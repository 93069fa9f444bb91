"""Small pieces with exact behaviour: editor lines, the outline of checkspec.yaml and of
steps, fn checks' own messages, selector validation messages and custom checks."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from checkspec.engine import FnCheck, Trace, from_fn
from checkspec.engine.core.jsonpath import (
    JSONPathError,
    JSONPathStr,
    compile_path,
)
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.lines import split_lines
from checkspec.engine.spec.workspace_config import CustomCheck, WorkspaceConfig
from checkspec.server.analysis.symbols import SymbolRole, document_symbols
from tests.support.analysis import dedent


def test_lines_break_where_editors_break_them() -> None:
    assert split_lines("a\nb\r\nc\rd") == ["a", "b", "c", "d"]
    assert split_lines("a\n") == ["a", ""]
    assert split_lines("a\x0cb\u2028c") == ["a\x0cb\u2028c"]
    assert split_lines("") == [""]


def test_the_outline_of_checkspec_yaml_lists_its_custom_checks() -> None:
    text = dedent(
        """
        custom_checks:
          - identifier: custom_a
            params: {type: regex_matching, pattern: x}
          - identifier: custom_b
            params: {keyword: y}
          - identifier: 3
          - just text
        """
    )
    symbols = document_symbols(analyze(text, "checkspec.yaml", None))
    assert [(s.name, s.role, s.detail, s.selection.start.line) for s in symbols] == [
        ("custom_a", SymbolRole.CUSTOM_CHECK, "regex_matching", 1),
        ("custom_b", SymbolRole.CUSTOM_CHECK, "", 3),
    ]
    assert document_symbols(analyze("model: x\n", "checkspec.yaml", None)) == []
    assert document_symbols(analyze("custom_checks: 3\n", "checkspec.yaml", None)) == []


def test_steps_show_their_first_input() -> None:
    text = dedent(
        """
        name: faq
        scenarios:
          - name: one
            interactions:
              - input: {messages: [{role: user, content: hello}]}
              - input: "a very long question that goes on and on and on for ever"
        """
    )
    (scenario,) = document_symbols(analyze(text, "f.dataset.yaml", None))
    assert [s.detail for s in scenario.children] == [
        "{1 key}",
        '"a very long question that goes on and …',
    ]
    plain = (
        "name: x\nsteps:\n  - interacts: [{inputs: [1, 2]}]\n  - checks: []\n  - interacts: []\n"
    )
    (s,) = document_symbols(analyze(plain, "t.scenario.yaml", None))
    assert [c.detail for c in s.children] == ["[2 items]", "", ""]


async def test_fn_checks_say_passed_or_failed_without_messages() -> None:
    trace = Trace.model_validate({"interactions": [{"inputs": "q", "outputs": "a"}]})
    passed = await from_fn(lambda t: True).run(trace)
    failed = await FnCheck(fn=lambda t: False, details={"k": 1}).run(trace)
    # As giskard-checks 1.0.6: no message of its own.
    assert (passed.status, passed.message, passed.details) == ("pass", None, {})
    assert (failed.status, failed.message, failed.details) == ("fail", None, {"k": 1})
    with pytest.raises(TypeError) as info:
        await FnCheck(fn=lambda t: "yes").run(trace)
    assert str(info.value) == (
        "from_fn callable must return bool or CheckResult (or awaitable thereof), "
        "but got str (value: 'yes')"
    )
    assert FnCheck.from_fn(len, name="n").model_dump()["fn"] == "builtins:len"
    assert FnCheck(fn="tests.support.conformance_fns:crashes").model_dump()["fn"] == (
        "tests.support.conformance_fns:crashes"
    )
    with pytest.raises(ValidationError):
        FnCheck(fn="no colon")


class Holder(BaseModel):
    path: JSONPathStr


def test_selectors_say_why_they_are_refused() -> None:
    with pytest.raises(JSONPathError) as info:
        compile_path(3)  # type: ignore[arg-type]
    assert str(info.value) == "JSONPath must be a string, got int"
    with pytest.raises(JSONPathError) as info:
        compile_path("last.outputs")
    assert str(info.value) == (
        "Invalid JSONPath expression 'last.outputs': path must start with 'trace.' "
        "(for example 'trace.last.outputs')"
    )
    assert compile_path("trace.last").text == "trace.last"
    with pytest.raises(ValidationError) as error:
        Holder(path="trace.[[")
    (detail,) = error.value.errors()
    assert detail["type"] == "jsonpath"
    assert detail["msg"].startswith("Invalid JSONPath expression 'trace.[[': ")


def test_custom_checks_keep_their_type_apart_from_their_parameters() -> None:
    custom = CustomCheck(identifier="custom_x", params={"type": "equals", "expected_value": 1})
    assert custom.base_kind == "equals" and custom.check_params() == {"expected_value": 1}
    with pytest.raises(ValidationError) as info:
        CustomCheck(identifier="custom_x", params={"expected_value": 1})
    assert "params needs a 'type': the built-in check identifier to configure" in str(info.value)
    config = WorkspaceConfig(custom_checks=[custom])
    assert config.custom() == {"custom_x": custom}
    with pytest.raises(ValidationError) as bad:
        WorkspaceConfig.model_validate({"concurrency": 0})  # the bound is the catalog's
    assert bad.value.errors()[0]["loc"] == ("concurrency",)
