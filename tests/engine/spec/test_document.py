"""The located document: every problem a user can make, at its exact line and column."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from checkspec.engine.spec.document import Document, analyze
from checkspec.engine.spec.problems import Severity
from checkspec.engine.spec.workspace import Workspace, workspace_from_text


def doc(text: str, name: str = "t.scenario.yaml", workspace: Workspace | None = None) -> Document:
    return analyze(textwrap.dedent(text).lstrip("\n"), name, workspace)


def where(document: Document, code: str) -> list[tuple[int, int, str]]:
    """(1-based line, 1-based column, message) of each problem with `code`."""
    return [
        (p.range.start.line + 1, p.range.start.character + 1, p.message)
        for p in document.all_problems
        if p.code == code
    ]


SCENARIO = """
name: refund
steps:
  - interacts:
      - inputs: What is your refund policy?
        outputs: We offer a 30-day refund.
    checks:
{checks}
"""


def scenario_with(checks: str) -> Document:
    body = textwrap.indent(textwrap.dedent(checks).strip("\n"), "      ")
    return doc(SCENARIO.format(checks=body))


def test_valid_scenario_builds_a_runnable_scenario_and_knows_check_lines() -> None:
    document = scenario_with(
        """
        - kind: string_matching
          keyword: 30-day
        - kind: regex_matching
          pattern: '\\d+-day'
        """
    )
    assert document.all_problems == []
    (entry,) = document.scenarios
    assert entry.scenario is not None and entry.name == "refund"
    assert [(c.kind, c.head.start.line + 1) for c in entry.checks] == [
        ("string_matching", 7),
        ("regex_matching", 9),
    ]


async def test_analysed_scenario_runs_and_replays_recorded_outputs() -> None:
    document = scenario_with("- {kind: string_matching, keyword: 30-day}")
    result = await document.scenarios[0].scenario.run()
    assert result.passed and result.replayed


def test_yaml_syntax_error_is_located() -> None:
    document = doc("name: x\nsteps: [\n  - a: b\n")
    (problem,) = document.all_problems
    assert problem.code == "syntax" and problem.range.start.line == 2


def test_unknown_kind_suggests_the_closest_and_offers_a_fix() -> None:
    document = scenario_with("- kind: string_matchin\n  keyword: x")
    ((line, col, message),) = where(document, "unknown-kind")
    assert (line, col) == (7, 15)
    assert "did you mean 'string_matching'" in message
    (problem,) = document.all_problems
    assert problem.fix and problem.fix[0].new_text == "string_matching"
    assert document.scenarios[0].scenario is None


def test_unknown_parameter_is_located_on_its_key_with_a_rename() -> None:
    document = scenario_with("- kind: string_matching\n  keywrd: x")
    assert where(document, "unknown-parameter") == [
        (8, 9, "unknown parameter 'keywrd' for string_matching; did you mean 'keyword'?")
    ]


def test_missing_trace_prefix_and_bad_jsonpath() -> None:
    document = scenario_with(
        """
        - kind: equals
          expected_value: 1
          target_key: last.outputs
        - kind: equals
          expected_value: 1
          target_key: trace.last[[
        """
    )
    found = where(document, "bad-jsonpath")
    assert [(line, col) for line, col, _ in found] == [(9, 21), (12, 21)]
    assert "must start with 'trace.'" in found[0][2]


def test_jsonpath_to_a_field_the_trace_does_not_have_is_a_warning() -> None:
    document = scenario_with("- {kind: equals, expected_value: 1, target_key: trace.last.output}")
    ((_, _, message),) = where(document, "unknown-trace-field")
    assert "did you mean 'outputs'" in message
    assert document.scenarios[0].scenario is not None  # a warning does not block running


def test_regex_error_points_inside_the_pattern() -> None:
    document = scenario_with("- kind: regex_matching\n  pattern: 'ab(c'")
    ((line, col, message),) = where(document, "regex-syntax")
    # The pattern starts at column 19 (after the quote); regex reports the error at
    # offset 4, the end of the pattern where ')' is missing.
    assert (line, col) == (8, 23)
    assert "missing )" in message


def test_rego_error_points_at_the_line_inside_the_policy() -> None:
    document = scenario_with(
        """
        - kind: rego_policy
          rule: data.x.allow
          policy: |
            package x
            allow if {
              input.role == == "admin"
            }
        """
    )
    ((line, _col, message),) = where(document, "rego-syntax")
    assert line == 12
    assert message.startswith("Rego:")


def test_mutually_exclusive_and_missing_alternatives() -> None:
    document = scenario_with(
        """
        - kind: string_matching
          keyword: a
          keyword_key: trace.last.inputs
        - kind: string_matching
          case_sensitive: false
        """
    )
    assert [(line, col) for line, col, _ in where(document, "mutually-exclusive")] == [(9, 9)]
    ((line, col, message),) = where(document, "missing-parameter")
    assert (line, col) == (10, 15)
    assert "'keyword' or 'keyword_key'" in message


def test_missing_required_parameter_points_at_the_kind() -> None:
    document = scenario_with("- kind: rego_policy\n  rule: data.x.allow")
    assert where(document, "missing-parameter") == [
        (7, 15, "rego_policy is missing required parameter 'policy'")
    ]


def test_invalid_expected_schema() -> None:
    document = scenario_with("- kind: json_valid\n  expected_schema: {type: 12}")
    ((line, col, message),) = where(document, "invalid-schema")
    assert (line, col) == (8, 26)
    assert "expected_schema" in message


def test_deprecated_alias_is_a_warning_with_a_rename_fix() -> None:
    document = scenario_with("- kind: equals\n  expected_value: 1\n  key: trace.last.outputs")
    (problem,) = document.all_problems
    assert problem.code == "deprecated-alias" and problem.severity is Severity.WARNING
    assert (problem.range.start.line + 1, problem.range.start.character + 1) == (9, 9)
    assert problem.fix[0].new_text == "target_key"
    assert document.scenarios[0].scenario is not None


def test_nested_check_problems_are_located_inside_composition() -> None:
    document = scenario_with(
        """
        - kind: all_of
          checks:
            - kind: string_matching
              keyword: ok
            - kind: string_matchng
              keyword: ok
        """
    )
    ((line, col, _),) = where(document, "unknown-kind")
    assert (line, col) == (11, 19)


def test_one_bad_check_does_not_hide_other_scenarios() -> None:
    text = """
    name: s
    scenarios:
      - name: good
        steps:
          - interacts: [{inputs: q, outputs: a}]
            checks: [{kind: string_matching, keyword: a}]
      - name: bad
        steps:
          - interacts: [{inputs: q, outputs: a}]
            checks: [{kind: nope}]
    """
    document = doc(text, "s.suite.yaml")
    good, bad = document.scenarios
    assert good.scenario is not None and bad.scenario is None
    assert [p.code for p in document.all_problems] == ["unknown-kind"]


def test_unknown_custom_check_and_custom_check_from_workspace(tmp_path: Path) -> None:
    workspace = workspace_from_text(
        textwrap.dedent(
            """
            custom_checks:
              - identifier: custom_polite
                params: {type: string_matching, keyword: please}
            """
        ),
        tmp_path / "checkspec.yaml",
    )
    assert workspace.problems == []
    text = SCENARIO.format(checks="      - kind: custom_polite\n      - kind: custom_polit")
    document = analyze(text.lstrip("\n"), "t.scenario.yaml", workspace)
    ((line, col, message),) = where(document, "unknown-custom-check")
    assert (line, col) == (8, 15) and "did you mean 'custom_polite'" in message


def test_custom_check_definition_errors_are_located_in_checkspec_yaml(tmp_path: Path) -> None:
    workspace = workspace_from_text(
        "custom_checks:\n  - identifier: custom_x\n    params: {type: regex_matching, pattern: 'a('}\n",
        tmp_path / "checkspec.yaml",
    )
    (problem,) = workspace.problems
    assert problem.code == "regex-syntax" and problem.range.start.line == 2


def test_file_kinds_and_unknown_kind_by_name() -> None:
    assert analyze("name: x\nsteps: []\n", "x.scenario.yml").kind.value == "scenario"
    unknown = analyze("a: 1\n", "notes.yaml")
    assert [p.code for p in unknown.problems] == ["unknown-file-kind"]
    by_schema = analyze("$schema: ../schemas/scenario.schema.json\nname: x\nsteps: []\n", "x.yaml")
    assert by_schema.kind.value == "scenario" and by_schema.all_problems == []


def test_json_scenario_file_is_located() -> None:
    text = (
        '{\n  "name": "j",\n  "steps": [{"checks": [{"kind": "equals", "expected_valu": 1}]}]\n}\n'
    )
    document = analyze(text, "j.scenario.json")
    ((line, col, _),) = where(document, "unknown-parameter")
    assert (line, col) == (3, 44)


DATASET = """
name: faq
scenarios:
  - interactions:
      - input:
          messages: [{role: user, content: hi}]
        output:
          response: {role: assistant, content: "Hello, how can I help?"}
          metadata: {score: 0.9, category: greeting}
        checks:
          - identifier: string_matching
            params: {keyword: help}
          - identifier: greater_than
            params: {expected_value: 0.5}
          - identifier: hub_metadata
            params:
              json_path_rules: [{json_path: $.category, expected_value: greeting, expected_value_type: string}]
"""


async def test_dataset_defaults_apply_and_the_dataset_runs() -> None:
    document = doc(DATASET, "f.dataset.yaml")
    assert document.all_problems == []
    (entry,) = document.scenarios
    checks = entry.scenario.steps[0].checks
    assert checks[0].target_key == "trace.last.outputs.response.content"
    assert checks[1].target_key == "trace.last.outputs.metadata.score"
    assert checks[2].metadata_key == "trace.last.outputs.metadata"
    assert entry.name == "hi"
    result = await entry.scenario.run()
    assert result.passed, result.format_failures()


def test_dataset_input_and_output_are_checked_against_the_schemas() -> None:
    text = DATASET.replace("{role: user, content: hi}", "{role: robot, content: hi}").replace(
        'response: {role: assistant, content: "Hello, how can I help?"}', "respons: {}"
    )
    document = doc(text, "f.dataset.yaml")
    found = where(document, "schema-mismatch")
    # At the bad role value, and at the output mapping that lacks `response`.
    assert [(line, col) for line, col, _ in found] == [(5, 29), (7, 11)]
    assert "'robot' is not one of" in found[0][2]


def test_invalid_input_schema_is_a_problem() -> None:
    document = doc("name: d\ninput_schema: {type: nonsense}\nscenarios: []\n", "d.dataset.yaml")
    assert [(p.code, p.range.start.line) for p in document.all_problems] == [("invalid-schema", 1)]


def test_jsonl_dataset_bad_line_does_not_hide_the_others() -> None:
    good = '{"interactions": [{"input": {"messages": [{"role": "user", "content": "a"}]}}]}'
    text = f"{good}\n{{oops\n{good}\n"
    document = analyze(text, "d.dataset.jsonl")
    assert [p.range.start.line for p in document.all_problems] == [1]
    assert len(document.scenarios) == 2 and all(e.scenario for e in document.scenarios)


def test_size_limit_alias_bomb_and_depth_are_refused() -> None:
    small = Workspace()
    small.config.max_file_size = 100
    big = analyze("name: x\n" + "# pad\n" * 100, "x.scenario.yaml", small)
    assert [p.code for p in big.problems] == ["too-large"]
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    assert [p.code for p in analyze(bomb, "b.scenario.yaml").problems] == ["alias-bomb"]
    deep = "name: " + "[" * 5000 + "]" * 5000
    assert [p.code for p in analyze(deep, "d.scenario.yaml").problems] == ["too-deep"]


def test_unchanged_scenarios_are_reused_after_an_edit_elsewhere() -> None:
    base = "name: s\nscenarios:\n" + "".join(
        f"  - name: s{i}\n    steps:\n      - interacts: [{{inputs: q, outputs: a}}]\n"
        f"        checks: [{{kind: string_matching, keyword: a}}]\n"
        for i in range(3)
    )
    first = analyze(base, "s.suite.yaml")
    edited = analyze("# a comment\n" + base, "s.suite.yaml")
    assert edited.scenarios[1].scenario is first.scenarios[1].scenario  # from the cache
    assert (
        edited.scenarios[1].checks[0].head.start.line
        == first.scenarios[1].checks[0].head.start.line + 1
    )


@pytest.mark.parametrize("target", ["python:agent", "ftp://x", "agent.answer"])
def test_bad_target_shapes(target: str) -> None:
    document = doc(f"name: x\ntarget: '{target}'\nsteps: []\n")
    assert [p.code for p in document.all_problems] == ["bad-target"]


def test_jinja_syntax_error_in_a_judge_prompt_points_at_its_line() -> None:
    document = scenario_with(
        """
        - kind: llm_judge
          prompt: |
            The user asked {{ trace.last.inputs }}.
            Did the answer {{ trace.last.outputs } help?
        """
    )
    ((line, col, message),) = where(document, "template-syntax")
    assert (line, col) == (10, 11) and message.startswith("Jinja2:")


def test_dataset_llm_checks_read_the_message_text_and_accept_target_key() -> None:
    text = DATASET.replace(
        "          - identifier: string_matching\n            params: {keyword: help}",
        "          - identifier: groundedness\n            params: {context: c}\n"
        "          - identifier: groundedness\n"
        "            params: {context: c, target_key: trace.last.outputs.metadata.category}",
    )
    document = doc(text, "f.dataset.yaml")
    assert document.all_problems == []
    first, second = document.scenarios[0].scenario.steps[0].checks[:2]
    assert first.target_key == "trace.last.outputs.response.content"
    assert second.target_key == "trace.last.outputs.metadata.category"
