"""The server's analysis layer, called directly: no LSP, no client, plain data in and out."""

from __future__ import annotations

import asyncio
import textwrap

import pytest

from checkspec.engine.core.check import Check
from checkspec.engine.spec.document import Document, analyze
from checkspec.engine.spec.kinds import FileKind
from checkspec.engine.spec.problems import Position, Range
from checkspec.server.analysis.actions import quick_fixes
from checkspec.server.analysis.completion import ItemKind, complete
from checkspec.server.analysis.lenses import RUN_FILE, RUN_SCENARIO, code_lenses
from checkspec.server.analysis.run_results import run_findings, run_summary
from checkspec.server.analysis.schema import Frame, root_shape, shape_at
from checkspec.server.analysis.symbols import SymbolRole, document_symbols
from tests.support.analysis import SCENARIO, dedent, hover_at, items, labels, pos

# Completion: kinds ------------------------------------------------------------------------


def test_kinds_complete_from_the_registry_and_the_workspace_custom_checks() -> None:
    text = SCENARIO.replace("kind: greater_than", "kind: gre")
    found = items(text, "kind: gre")
    names = labels(found)
    assert names[: len(Check.registry())] == list(Check.registry())
    assert "custom_polite" in names
    greater = next(i for i in found if i.label == "greater_than")
    assert greater.kind is ItemKind.CHECK
    assert greater.replace == Range(pos(text, "gre", 0), pos(text, "kind: gre"))
    assert "- `expected_value` *any*, **required**" in greater.documentation
    assert not greater.documentation.startswith("**greater_than**")  # the detail says it
    polite = next(i for i in found if i.label == "custom_polite")
    assert "The answer says please." in polite.documentation


def test_a_kind_typed_right_after_the_colon_gets_its_space() -> None:
    text = SCENARIO.replace("kind: greater_than", "kind:")
    found = items(text, "      - kind:", offset=len("      - kind:"))
    assert next(i for i in found if i.label == "equals").insert == " equals"


def test_interaction_kinds_complete_in_interacts() -> None:
    text = SCENARIO.replace("- inputs: And exchanges?", "- kind: \n            inputs: x")
    assert labels(items(text, "- kind: \n", offset=len("- kind: "))) == ["interact", "with_spy"]


def test_dataset_identifiers_and_config_types_complete() -> None:
    dataset = dedent(
        """
        name: faq
        scenarios:
          - interactions:
              - input: {messages: [{role: user, content: hi}]}
                checks:
                  - identifier: str
        """
    )
    assert {"string_matching", "custom_polite"} <= set(
        labels(items(dataset, "str", "f.dataset.yaml"))
    )
    config = dedent(
        """
        custom_checks:
          - identifier: custom_x
            params:
              type: re
        """
    )
    found = labels(items(config, "type: re", "checkspec.yaml"))
    assert "regex_matching" in found and "custom_polite" not in found  # built-ins only


# Completion: parameters -------------------------------------------------------------------


def test_parameters_of_the_check_around_the_cursor_minus_those_written() -> None:
    text = SCENARIO.replace("keyword: 30-day\n", "keyword: 30-day\n        cas\n")
    found = items(text, "        cas")
    names = labels(found)
    assert "case_sensitive" in names
    assert "keyword" not in names and "target_key" not in names  # already there
    case = next(i for i in found if i.label == "case_sensitive")
    assert case.insert == "case_sensitive: "
    assert case.detail == "boolean"
    assert "Whether matching is case-sensitive." in case.documentation
    assert "Default: `true`" in case.documentation


def test_a_deprecated_alias_counts_as_its_parameter_being_written() -> None:
    text = SCENARIO.replace(
        "target_key: trace.last.outputs.answer", "key: trace.last.outputs.answer"
    )
    text = text.replace("keyword: 30-day\n", "keyword: 30-day\n        ta\n")
    assert "target_key" not in labels(items(text, "        ta"))


def test_a_new_list_item_offers_kind_first() -> None:
    text = SCENARIO.replace("    expected_value: 0.5\n", "    expected_value: 0.5\n      - \n", 1)
    found = items(text, "      - \n", offset=len("      - "))
    assert labels(found) == ["kind"]
    assert found[0].insert == "kind: "


def test_dataset_params_show_the_dataset_defaults() -> None:
    text = dedent(
        """
        name: faq
        scenarios:
          - interactions:
              - input: {messages: [{role: user, content: hi}]}
                checks:
                  - identifier: string_matching
                    params:
                      keyword: hi
                      tar
        """
    )
    target = next(i for i in items(text, "tar", "f.dataset.yaml") if i.label == "target_key")
    assert 'Default: `"trace.last.outputs.response.content"`' in target.documentation


def test_top_level_keys_of_each_file_kind() -> None:
    assert {"name", "steps", "target", "tags"} <= set(labels(items("na", "na")))
    assert {"name", "scenarios"} <= set(labels(items("na", "na", "s.suite.yaml")))
    assert {"input_schema", "scenarios"} <= set(labels(items("na", "na", "d.dataset.yaml")))
    assert {"model", "custom_checks", "max_file_size"} <= set(
        labels(items("mo", "mo", "checkspec.yaml"))
    )


def test_space_triggered_completion_offers_values_and_new_items_only() -> None:
    text = SCENARIO.replace("keyword: 30-day\n", "keyword: 30-day\n         \n")
    assert items(text, "30-day\n         ", trigger=" ") == []
    item = SCENARIO.replace("    expected_value: 0.5\n", "    expected_value: 0.5\n      - \n", 1)
    assert labels(items(item, "      - \n", offset=len("      - "), trigger=" ")) == ["kind"]
    assert (
        labels(items(SCENARIO, "expected_value: ", trigger=" ", offset=len("expected_value: ")))
        == []
    )


# Completion: values -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "typed", "expected"),
    [
        ("kind: string_matching\n  normalization_form: NF", "NF", ["NFC", "NFD", "NFKC", "NFKD"]),
        ("kind: equals\n  match: ", "match: ", ["any", "all", "none"]),
        ("kind: string_matching\n  case_sensitive: f", "case_sensitive: f", ["true", "false"]),
        ("kind: readability\n  metric: f", "metric: f", None),
        ("kind: toxicity\n  categories:\n    - ha", "- ha", None),
        ("kind: toxicity\n  categories: [hate_speech, ha", "hate_speech, ha", None),
    ],
)
def test_values_of_literal_and_boolean_parameters(
    check: str, typed: str, expected: list[str] | None
) -> None:
    text = "name: x\nsteps:\n  - checks:\n      - " + textwrap.indent(check, "      ").lstrip()
    found = labels(items(text, typed))
    if expected is not None:
        assert found == expected
    elif "metric" in typed:
        assert "flesch_reading_ease" in found and "gunning_fog" in found
    else:
        assert found == [
            "hate_speech",
            "harassment",
            "threats",
            "self_harm",
            "sexual_content",
            "violence",
        ]


# Completion: trace paths ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("trace.", ["last", "interactions", "annotations"]),
        ("trace.last.", ["inputs", "outputs", "metadata"]),
        ("trace.interactions[0].", ["inputs", "outputs", "metadata"]),
        ("trace.last.outputs.", ["answer", "score", "details"]),
        ("trace.last.outputs.details.", ["days"]),
        ("trace.last.metadata.", ["latency_ms"]),
        ("trace.interactions[-1].outputs.", ["answer", "score", "details"]),
        ("trace.annotations.", ["user"]),
    ],
)
def test_trace_paths_offer_model_fields_then_the_recorded_keys(
    typed: str, expected: list[str]
) -> None:
    text = SCENARIO.replace("trace.last.outputs.nope", typed)
    found = items(text, f"{typed}\n", offset=len(typed))
    assert labels(found) == expected
    assert all(i.kind is ItemKind.PATH for i in found)
    at = pos(text, f"{typed}\n", len(typed))
    assert found[0].replace == Range(at, at)


def test_trace_last_is_the_latest_interaction_of_the_check_step() -> None:
    text = SCENARIO.replace("trace.last.outputs.verdict", "trace.last.outputs.v")
    found = items(text, "trace.last.outputs.v")
    assert labels(found) == ["verdict", "reason"]  # step 2's answer, not step 1's
    start = pos(text, "trace.last.outputs.v", len("trace.last.outputs."))
    assert found[0].replace == Range(start, pos(text, "trace.last.outputs.v"))


def test_trace_paths_in_a_dataset_read_the_recorded_output() -> None:
    text = dedent(
        """
        name: faq
        scenarios:
          - interactions:
              - input: {messages: [{role: user, content: hi}]}
                output: {response: {role: assistant, content: hello}, metadata: {score: 3}}
                checks:
                  - identifier: equals
                    params: {expected_value: 3, target_key: trace.last.outputs.metadata.}
        """
    )
    assert labels(items(text, "outputs.metadata.", "f.dataset.yaml")) == ["score"]


def test_recorded_keys_come_from_an_earlier_parse_while_the_yaml_is_broken() -> None:
    good = SCENARIO.replace("trace.last.outputs.nope", "trace.last.outputs.")
    broken = good.replace("keyword: 30-day\n", "keyword: 30-day\n        cas\n")
    assert analyze(broken, "t.scenario.yaml").source.root is None
    at = len("outputs.")
    assert labels(items(broken, "outputs.\n", offset=at)) == []
    earlier = analyze(good, "t.scenario.yaml")
    found = items(broken, "outputs.\n", offset=at, earlier=earlier)
    assert labels(found) == ["answer", "score", "details"]


SUITE = dedent(
    """
    name: many
    scenarios:
      - name: first
        steps:
          - interacts: [{inputs: a, outputs: {alpha: 1}}]
            checks: [{kind: equals, expected_value: 1, target_key: trace.last.outputs.alpha}]
      - name: second
        steps:
          - interacts: [{inputs: b, outputs: {beta: 2}}]
            checks: [{kind: equals, expected_value: 2, target_key: trace.last.outputs.beta}]
      - name: third
        steps:
          - interacts:
              - {inputs: c, outputs: {gamma: 3, delta: 4}}
            checks:
              - kind: equals
                expected_value: 3
                target_key: trace.last.outputs.
    """
)


def test_trace_paths_in_a_later_scenario_of_a_suite_read_that_scenario() -> None:
    typed = "trace.last.outputs.\n"
    assert labels(items(SUITE, typed, "s.suite.yaml", offset=len(typed) - 1)) == ["gamma", "delta"]


def test_a_tree_one_keystroke_old_still_places_the_cursor() -> None:
    earlier = analyze(SUITE, "s.suite.yaml")
    shifted = SUITE.replace("  - name: second\n", "\n\n  - name: second\n")  # lines moved
    typed = "trace.last.outputs.\n"
    at = pos(shifted, typed, len(typed) - 1)
    found = complete(earlier, shifted, at, None)  # completion given the old analysis
    assert labels(found) == ["gamma", "delta"]


def test_keys_needing_quotes_are_quoted_in_paths() -> None:
    text = "name: x\nsteps:\n  - interacts:\n      - {inputs: a, outputs: {my key: 1}}\n    checks:\n      - {kind: equals, expected_value: 1, target_key: trace.last.outputs.}\n"
    (found,) = items(text, "outputs.}", offset=len("outputs."))
    assert (found.label, found.insert) == ("my key", "'my key'")


# Completion: JSON, flow style, block scalars ----------------------------------------------


def test_json_files_complete_from_the_parsed_tree() -> None:
    text = '{"name": "x", "steps": [{"checks": [{"kind": "string_m", "keyword": "a"}]}]}'
    assert "string_matching" in labels(items(text, "string_m", "t.scenario.json"))
    text = text.replace("string_m", "string_matching")
    keys = items(text, '"keyword', "t.scenario.json")
    assert "case_sensitive" in labels(keys) and "keyword" in labels(keys)
    assert next(i for i in keys if i.label == "case_sensitive").insert == "case_sensitive"


def test_flow_mappings_complete_from_the_parsed_tree() -> None:
    text = "name: x\nsteps:\n  - checks:\n      - kind: not\n        check: {kind: string_m, keyword: x}\n"
    assert "string_matching" in labels(items(text, "string_m"))


def test_nothing_is_offered_inside_block_text() -> None:
    text = "name: x\nsteps:\n  - checks:\n      - kind: llm_judge\n        prompt: |\n          kind: \n          more\n"
    assert items(text, "          kind: ") == []


def test_a_long_line_is_read_in_linear_time() -> None:
    # No clock: a reading that backtracks over the line (quadratic) would take hours on
    # these 200,000 spaces, and the suite would not finish; a linear one takes milliseconds.
    text = (
        "name: x\nsteps:\n  - checks:\n      - kind: equals\n        " + "a" + " " * 200_000 + "\n"
    )
    found = items(text, "a" + " " * 200_000)
    assert found == []  # after a value, on its own line: nothing to offer


# Hover ------------------------------------------------------------------------------------


def test_hover_on_a_kind_shows_what_it_does_how_to_write_it_and_its_parameters() -> None:
    shown = hover_at(SCENARIO, "string_matching")
    assert shown.startswith("**string_matching** — Passes when the keyword occurs")
    assert "```yaml\n- kind: string_matching\n  keyword: TODO\n```" in shown
    assert (
        "- `keyword` *string*, **required** — Substring to search for (or use keyword_key)."
        in shown
    )
    assert (
        "- `case_sensitive` *boolean*, default `true` — Whether matching is case-sensitive."
        in shown
    )
    assert "`kind`" not in shown.split("```", 2)[2]  # not a parameter of its own


def test_hover_on_a_parameter_key_explains_it() -> None:
    shown = hover_at(SCENARIO, "expected_value: 0.5")
    assert shown.startswith("**expected_value**: `any` — greater_than check")
    assert "Static expected value" in shown


def test_hover_on_a_jsonpath_resolves_it_on_the_recorded_trace() -> None:
    shown = hover_at(SCENARIO, "trace.last.outputs.answer")
    assert "`trace.last.outputs.answer` on the recorded trace of step 1 (replayed)" in shown
    assert '"30-day refund"' in shown
    assert "**target_key**" in shown  # the parameter docs follow


def test_hover_on_a_jsonpath_that_matches_nothing_says_what_is_there() -> None:
    shown = hover_at(SCENARIO, "trace.last.outputs.nope")
    assert "matches nothing in the recorded trace of step 1" in shown
    assert "`trace.last.outputs` has: `answer`, `score`, `details`." in shown


def test_hover_does_not_resolve_what_a_run_would_compute() -> None:
    with_target = SCENARIO.replace("name: refund\n", "name: refund\ntarget: python:agent:answer\n")
    assert "calls its target `python:agent:answer`" in hover_at(
        with_target, "trace.last.outputs.answer"
    )
    unrecorded = SCENARIO.replace(
        "        outputs: {answer: 30-day refund, score: 0.9, details: {days: 30}}\n", ""
    )
    assert "step 1 has no recorded outputs" in hover_at(unrecorded, "trace.last.outputs.answer")


def test_hover_in_a_dataset_documents_dataset_defaults_and_custom_checks() -> None:
    text = dedent(
        """
        name: faq
        scenarios:
          - interactions:
              - input: {messages: [{role: user, content: hi}]}
                checks:
                  - identifier: string_matching
                    params: {keyword: hi}
                  - identifier: custom_polite
        """
    )
    shown = hover_at(text, "string_matching", "f.dataset.yaml")
    assert '`"trace.last.outputs.response.content"`' in shown
    custom = hover_at(text, "custom_polite", "f.dataset.yaml")
    assert custom.startswith("**custom_polite** — custom check based on `string_matching`")
    assert "The answer says please." in custom
    assert "```yaml\ntype: string_matching\nkeyword: please\n```" in custom  # as in the file


def test_hover_on_a_list_value_explains_the_list() -> None:
    text = "name: x\nsteps:\n  - checks:\n      - kind: toxicity\n        categories: [threats]\n"
    assert hover_at(text, "threats").startswith("**categories**")


# Symbols, quick fixes, lenses ------------------------------------------------------------


def test_symbols_nest_scenarios_steps_and_checks_with_nested_ranges() -> None:
    (scenario,) = document_symbols(analyze(SCENARIO, "t.scenario.yaml"))
    assert (scenario.name, scenario.role) == ("refund", SymbolRole.SCENARIO)
    assert [s.name for s in scenario.children] == ["step 1", "step 2"]
    assert scenario.children[0].detail == '"What is your refund policy?"'
    assert [c.name for c in scenario.children[0].children] == ["string_matching", "greater_than"]

    def nested(symbol) -> bool:  # type: ignore[no-untyped-def]
        inside = (
            symbol.range.start <= symbol.selection.start
            and symbol.selection.end <= symbol.range.end
        )
        return inside and all(nested(child) for child in symbol.children)

    assert nested(scenario)
    check = scenario.children[0].children[0]
    assert check.selection.start == pos(SCENARIO, "string_matching", 0)


def test_symbols_of_checkspec_yaml_are_its_custom_checks() -> None:
    config = (
        "custom_checks:\n  - identifier: custom_a\n    params: {type: equals, expected_value: 1}\n"
    )
    (symbol,) = document_symbols(analyze(config, "checkspec.yaml"))
    assert (symbol.name, symbol.role, symbol.detail) == (
        "custom_a",
        SymbolRole.CUSTOM_CHECK,
        "equals",
    )


def test_quick_fixes_come_from_problems_near_the_selection() -> None:
    text = SCENARIO.replace("kind: string_matching", "kind: string_matchng").replace(
        "target_key: trace.last.outputs.nope", "key: trace.last.outputs.nope"
    )
    document = analyze(text, "t.scenario.yaml")
    at_kind = Range(pos(text, "string_matchng", 2), pos(text, "string_matchng", 2))
    (fix,) = quick_fixes(document, at_kind)
    assert fix.title == "Change to 'string_matching'"
    assert [e.new_text for e in fix.edits] == ["string_matching"]
    everywhere = Range(Position(0, 0), Position(100, 0))
    titles = sorted(f.title for f in quick_fixes(document, everywhere))
    assert titles == ["Change to 'string_matching'", "Rename to 'target_key'"]
    assert quick_fixes(document, Range(Position(0, 0), Position(0, 1))) == []


def test_lenses_run_each_runnable_scenario_and_the_whole_file() -> None:
    suite = dedent(
        """
        name: s
        scenarios:
          - name: ok
            steps: [{interacts: [{inputs: a, outputs: b}], checks: [{kind: equals, expected_value: b}]}]
          - name: broken
            steps: [{checks: [{kind: nope}]}]
          - name: also ok
            steps: []
        """
    )
    lenses = code_lenses(analyze(suite, "s.suite.yaml"))
    assert [
        (lens.title, lens.command, lens.scenario, lens.range.start.line) for lens in lenses
    ] == [
        ("▶ Run all (2 of 3)", RUN_FILE, None, 0),
        ("▶ Run scenario", RUN_SCENARIO, 0, 2),
        ("⚠ not runnable: unknown check 'nope'", "", 1, 4),
        ("▶ Run scenario", RUN_SCENARIO, 2, 6),
    ]
    single = code_lenses(analyze(SCENARIO, "t.scenario.yaml"))
    assert [(lens.title, lens.scenario) for lens in single] == [("▶ Run scenario", 0)]
    broken = code_lenses(analyze("name: x\nsteps: [{checks: [{kind: nope}]}]\n", "t.scenario.yaml"))
    assert [lens.title for lens in broken] == ["⚠ not runnable: unknown check 'nope'"]


# Run results -----------------------------------------------------------------------------


def run(text: str, name: str = "t.scenario.yaml") -> tuple[Document, object]:
    document = analyze(text, name)
    entry = document.scenarios[0]
    assert entry.scenario is not None
    return document, asyncio.run(entry.scenario.model_copy().run(return_exception=True))


def test_run_findings_sit_at_the_failing_checks_with_their_messages() -> None:
    document, result = run(SCENARIO)
    entry = document.scenarios[0]
    findings = run_findings(entry, result)  # type: ignore[arg-type]
    by_code = {f.code: f for f in findings}
    assert by_code["scenario-error"].range == entry.head
    assert by_code["scenario-error"].message.startswith("refund: error — 1 errored of 3 checks")
    errored = by_code["check-error"]
    assert errored.range.start == pos(SCENARIO, "greater_than", 0)
    assert errored.message.startswith("greater_than errored: ")
    assert "trace.last.outputs.nope" in errored.message

    summary = run_summary(entry, result)  # type: ignore[arg-type]
    assert (summary["scenario"], summary["status"], summary["replayed"]) == (
        "refund",
        "error",
        True,
    )
    assert [(c["kind"], c["status"], c["line"]) for c in summary["checks"]] == [
        ("string_matching", "pass", 8),
        ("greater_than", "error", 11),
        ("equals", "skip", 18),
    ]


def test_a_failing_check_is_reported_as_failed() -> None:
    text = SCENARIO.replace("trace.last.outputs.nope", "trace.last.outputs.score").replace(
        "expected_value: 0.5", "expected_value: 5"
    )
    document, result = run(text)
    (failure,) = [f for f in run_findings(document.scenarios[0], result) if f.code == "check-fail"]  # type: ignore[arg-type]
    assert failure.range.start.line == 11
    assert failure.message.startswith("greater_than failed: ")


def test_a_step_that_cannot_run_is_reported_at_the_step() -> None:
    text = "name: x\nsteps:\n  - interacts:\n      - inputs: no recorded answer\n    checks:\n      - {kind: equals, expected_value: 1}\n"
    document, result = run(text)
    findings = run_findings(document.scenarios[0], result)  # type: ignore[arg-type]
    (step,) = [f for f in findings if f.code == "step-errored"]
    assert step.range.start == Position(2, 4)
    assert "no recorded 'outputs'" in step.message


# The schema walk ----------------------------------------------------------------------------


def test_every_registered_check_has_a_documented_shape() -> None:
    for kind, cls in Check.registry().items():
        shape = shape_at(
            FileKind.SCENARIO,
            [
                Frame(None, {}),
                Frame("steps", None),
                Frame(0, {}),
                Frame("checks", None),
                Frame(0, {"kind": kind}),
            ],
        )
        assert shape is not None and shape.check is cls, kind
        assert all(doc.description for name, doc in shape.fields.items() if name != "kind"), kind


def test_nested_checks_and_models_are_walked_by_their_kinds() -> None:
    frames = [
        Frame(None, {}),
        Frame("steps", None),
        Frame(0, {}),
        Frame("checks", None),
        Frame(0, {"kind": "all_of"}),
        Frame("checks", None),
        Frame(0, {"kind": "hub_metadata"}),
        Frame("json_path_rules", None),
        Frame(0, {}),
    ]
    rule = shape_at(FileKind.SCENARIO, frames)
    assert rule is not None and set(rule.fields) == {
        "json_path",
        "expected_value",
        "expected_value_type",
    }
    assert rule.fields["expected_value_type"].choices == ("string", "number", "boolean")
    judge = shape_at(
        FileKind.SCENARIO, [*frames[:4], Frame(0, {"kind": "conformity"}), Frame("generator", {})]
    )
    assert judge is not None and "model" in judge.fields
    root = root_shape(FileKind.SUITE)
    assert root is not None and "scenarios" in root.fields


def test_fields_of_the_reference_api_complete_and_python_only_ones_do_not() -> None:
    text = SCENARIO.replace("annotations: {user: bob}\n", "annotations: {user: bob}\nmu\n")
    top = labels(items(text, "\nmu"))
    assert "multiple_runs" in top
    assert "trace_type" not in top  # a Python class: never written in a file
    text = SCENARIO.replace(
        "keyword: 30-day\n", "keyword: 30-day\n      - kind: conformity\n        ju\n"
    )
    assert {"judge", "generator"} <= set(labels(items(text, "        ju")))
    text = SCENARIO.replace(
        "keyword: 30-day\n",
        "keyword: 30-day\n      - kind: conformity\n        judge:\n          ki\n",
    )
    assert {"kind", "generator"} <= set(labels(items(text, "          ki")))
    shown = hover_at(
        SCENARIO.replace(
            "keyword: 30-day\n",
            "keyword: 30-day\n      - kind: conformity\n        rule: r\n        judge: openai/m\n",
        ),
        "judge: openai",
    )
    assert shown.startswith("**judge**") and "System One Model" in shown


def test_simulated_users_complete_and_hover_in_interaction_inputs() -> None:
    text = dedent(
        """
        name: x
        steps:
          - interacts:
              - inputs:
                  kind: user_simulator
                  pe
        """
    )
    found = labels(items(text, "          pe"))
    assert {"persona", "context", "max_steps"} <= set(found)
    written = text.replace("          pe\n", "          persona: frustrated_customer\n")
    shown = hover_at(written, "persona")
    assert shown.startswith("**persona**: `string` — user_simulator input generator")
    assert "frustrated_customer" in shown
