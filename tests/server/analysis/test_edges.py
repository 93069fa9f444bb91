"""Edges the other tests do not reach: exact boundaries and less common input shapes
(source, document, locate, context, hover, schema, symbols, completion)."""

from __future__ import annotations

from checkspec.engine import Check
from checkspec.engine.core.jsonpath import NoMatch
from checkspec.engine.spec.config_analysis import analyze_config
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.kinds import FileKind
from checkspec.engine.spec.problems import Position, Range
from checkspec.engine.spec.source import _size, parse_source
from checkspec.engine.spec.workspace_config import WorkspaceConfig
from checkspec.server.analysis.context import cursor_context
from checkspec.server.analysis.schema import named_class, root_shape
from checkspec.server.analysis.symbols import document_symbols
from tests.support.analysis import SCENARIO, WORKSPACE, dedent, hover_at, items, labels


def problems(text: str, path: str = "t.scenario.yaml") -> list[tuple[str, str, Range]]:
    return [(p.code, p.message, p.range) for p in analyze(text, path).all_problems]


def test_sizes_are_shown_in_bytes_kb_and_mb() -> None:
    assert _size(999) == "999 bytes"
    assert _size(1000) == "1 KB"
    assert _size(1500) == "1.5 KB"
    assert _size(999_999) == "1000 KB"
    assert _size(1_000_000) == "1 MB"
    assert _size(12_345_678) == "12.3 MB"


def test_node_repr_is_cut_after_40_characters() -> None:
    root = parse_source("a: " + "x" * 50 + "\nb: short\n").root
    assert repr(root.get("b")) == "Node(scalar at 1:3, 'short')"
    long = repr(root.get("a"))
    assert long == "Node(scalar at 0:3, '" + "x" * 36 + "...)"


def test_yaml_merges_and_aliases_that_cannot_be_read() -> None:
    source = parse_source("base: &b 3\nx:\n  <<: *b\n  y: 1\n")
    assert [(p.code, p.message, p.range) for p in source.problems] == [
        (
            "syntax",
            "a `<<` merge needs a mapping or a list of mappings",
            Range(Position(2, 6), Position(2, 8)),
        )
    ]
    merged = parse_source("a: &a {x: 1}\nb: &b {x: 2, y: 2}\nc:\n  <<: [*a, *b]\n  z: 3\n").root
    assert merged.get("c").value == {"x": 1, "y": 2, "z": 3}
    undefined = parse_source("a: *nowhere\n")
    assert [(p.code, p.message) for p in undefined.problems] == [
        ("syntax", "found undefined alias *nowhere")
    ]


def test_checkspec_yaml_alone() -> None:
    assert analyze_config("") == (WorkspaceConfig(), [])
    config, found = analyze_config("- a\n")
    assert config == WorkspaceConfig()
    assert [(p.code, p.message) for p in found] == [
        ("invalid-structure", "checkspec.yaml must be a mapping")
    ]
    assert problems("target: nope\n", "checkspec.yaml") == [
        (
            "bad-target",
            "unknown target 'nope': use 'python:package.module:function' or an http(s):// URL",
            Range(Position(0, 8), Position(0, 12)),
        )
    ]


def test_suites_need_a_name_and_nested_parameters_get_suggestions() -> None:
    assert problems("scenarios: []\n", "s.suite.yaml") == [
        ("missing-parameter", "a suite needs a 'name'", Range(Position(0, 0), Position(0, 0)))
    ]
    text = dedent(
        """
        name: x
        steps:
          - checks:
              - kind: not
                check: {kind: string_matching, keywrd: a}
        """
    )
    (problem,) = problems(text)
    assert problem[:2] == (
        "unknown-parameter",
        "unknown parameter 'keywrd' for string_matching; did you mean 'keyword'?",
    )


def test_quoted_keys_with_escapes_and_empty_ones() -> None:
    # (a backslash escape is skipped when finding the closing quote, and kept in the key)
    for text, key in (('"a\\"b": va\n', 'a\\"b'), ('"": va\n', ""), ("'it''s': va\n", "it's")):
        found = cursor_context(text, Position(0, len(text) - 1))
        assert found is not None and found.key == key and found.prefix == "va", text


def test_hover_says_where_a_long_path_stops_matching() -> None:
    text = SCENARIO.replace("trace.last.outputs.nope", "trace.last.outputs.details.nope.deeper")
    shown = hover_at(text, "trace.last.outputs.details.nope.deeper")
    assert "`trace.last.outputs.details` has: `days`." in shown


def test_a_suite_documents_its_scenarios_key() -> None:
    doc = root_shape(FileKind.SUITE).fields["scenarios"]
    assert (doc.type, doc.description) == (
        "list[scenario]",
        "The scenarios of this suite, each run on its own.",
    )
    assert named_class(Check, ["not", "a", "name"], {}) == (None, None)
    assert named_class(Check, "equals", {})[0] is Check.registry()["equals"]


def test_the_outline_of_a_step_that_is_not_a_mapping() -> None:
    (scenario,) = document_symbols(analyze("name: x\nsteps:\n  - just text\n", "t.scenario.yaml"))
    assert [(s.name, s.detail) for s in scenario.children] == [("step 1", "")]


def test_the_kind_is_offered_first_in_a_new_check() -> None:
    text = "name: x\nsteps:\n  - checks:\n      - \n"
    found = items(text, "      - ", offset=8, trigger=" ")
    assert [(c.label, c.sort) for c in found] == [("kind", "0000")]  # ranked first
    assert WORKSPACE.custom_checks  # the workspace used offers custom kinds too


LINT_PLACES = [
    ("regex_matching", "        pattern: ab(c\n", "4:21-4:22 regex-syntax"),
    ("regex_matching", '        pattern: "ab(c"\n', "4:22-4:23 regex-syntax"),
    # an escape in the quotes: offsets in the value no longer match the text, so the
    # whole value is underlined
    ("regex_matching", '        pattern: "a\\\\b(c"\n', "4:17-4:25 regex-syntax"),
    # in a block scalar: at the line and column inside the text; at the end of the text
    # when the error is "at end of input"
    (
        "regex_matching",
        "        pattern: |\n          ab\n          (c\n",
        "6:12-6:12 regex-syntax",
    ),
    ("regex_matching", "        pattern: |\n          ab(\n", "5:13-5:13 regex-syntax"),
    ("llm_judge", "        prompt: |\n          hello {{ x\n", "5:10-5:20 template-syntax"),
    (
        "llm_judge",
        "        prompt: |\n          hello\n          {% if %}\n          x\n",
        "6:10-6:18 template-syntax",
    ),
    ("llm_judge", "        prompt: >\n          a {{ b\n", "5:10-5:16 template-syntax"),
    (
        "rego_policy",
        '        rule: data.x.allow\n        policy: "package x\\nallow if {"\n',
        "5:16-5:39 rego-syntax",
    ),
]


def test_a_parameter_error_is_placed_inside_the_parameter_text() -> None:
    for kind, params, expected in LINT_PLACES:
        text = f"name: x\nsteps:\n  - checks:\n      - kind: {kind}\n{params}"
        (problem,) = analyze(text, "t.scenario.yaml").all_problems
        r = problem.range
        found = f"{r.start.line}:{r.start.character}-{r.end.line}:{r.end.character} {problem.code}"
        assert found == expected, params


def test_hover_on_a_top_level_list_item_and_with_a_workspace_target() -> None:
    from checkspec.engine.spec.workspace import Workspace
    from checkspec.server.analysis.hover import hover

    listed = analyze("- a\n- b\n", "t.scenario.yaml")
    assert hover(listed, Position(0, 2)) is None
    workspace = Workspace(config=WorkspaceConfig(target="python:ws:agent"))
    document = analyze(SCENARIO, "t.scenario.yaml", workspace)
    found = hover(document, Position(9, 26), workspace)
    assert found is not None
    assert found.markdown.startswith(
        "`trace.last.outputs.answer` is resolved when the scenario runs: this scenario calls "
        "its target `python:ws:agent` when it runs."
    )


def test_a_path_that_starts_with_a_dot_is_offered_nothing() -> None:
    text = "name: x\nsteps:\n  - checks:\n      - kind: equals\n        target_key: .\n"
    assert items(text, "target_key: .") == []


def test_recorded_data_inside_a_dataset_turn_stops_at_that_turn() -> None:
    from checkspec.server.analysis.recorded import recorded_at

    text = dedent(
        """
        name: faq
        scenarios:
          - interactions:
              - input: a
                output: {x: 1}
              - input: b
                output: {y: 2}
        """
    )
    document = analyze(text, "f.dataset.yaml")
    first = recorded_at(document, ["scenarios", 0, "interactions", 0, "checks"])
    assert [i.inputs for i in first.interactions] == ["a"] and first.step == 0


def test_what_each_column_of_a_line_is_on() -> None:
    text = "a: xy\nb: [1, {c: d}]\n"
    source = parse_source(text)
    found = []
    for line, content in enumerate(text.split("\n")[:2]):
        for column in range(len(content) + 1):
            node = source.node_at(line, column)
            found.append(f"{line}:{column} {source.path_at(line, column)} {node.kind}")
    assert found == [
        "0:0 ['a'] scalar",
        "0:1 ['a'] scalar",
        "0:2 [] mapping",
        "0:3 ['a'] scalar",
        "0:4 ['a'] scalar",
        "0:5 ['a'] scalar",
        "1:0 ['b'] scalar",
        "1:1 ['b'] scalar",
        "1:2 [] mapping",
        "1:3 ['b'] sequence",
        "1:4 ['b', 0] scalar",
        "1:5 ['b', 0] scalar",
        "1:6 ['b'] sequence",
        "1:7 ['b', 1] mapping",
        "1:8 ['b', 1, 'c'] scalar",
        "1:9 ['b', 1, 'c'] scalar",
        "1:10 ['b', 1] mapping",
        "1:11 ['b', 1, 'c'] scalar",
        "1:12 ['b', 1, 'c'] scalar",
        "1:13 ['b', 1] mapping",
        "1:14 ['b'] sequence",
    ]


def test_json_that_yaml_cannot_read_keeps_the_depth_limit() -> None:
    # YAML keys stop at 1024 characters: this is read as plain JSON values, and nests as
    # deep as the same JSON with a short key, read by YAML (three levels)
    assert parse_source('{"k": {"a": {"b": 1}}}', json=True, max_depth=3).root is not None
    key = "k" * 1100
    text = '{"' + key + '": {"a": {"b": 1}}}'
    assert parse_source(text, json=True, max_depth=3).root is not None
    refused = parse_source(text, json=True, max_depth=2)
    assert refused.root is None and [p.code for p in refused.problems] == ["too-deep"]


def test_a_jsonl_dataset_answers_every_editor_request() -> None:
    from checkspec.server.analysis.completion import complete
    from checkspec.server.analysis.hover import hover
    from checkspec.server.analysis.symbols import document_symbols as symbols

    text = '{"interactions": [{"input": "hi", "checks": [{"identifier": "equals"}]}]}\n'
    document = analyze(text, "data/f.dataset.jsonl")
    assert document.path == "data/f.dataset.jsonl" and document.kind is FileKind.DATASET
    # On the row's key: a dataset scenario's keys, and the key's documentation.
    assert "name" in [c.label for c in complete(document, text, Position(0, 5))]
    shown = hover(document, Position(0, 5))
    assert shown is not None and shown.markdown.startswith("**interactions**")
    assert [s.name for s in symbols(document)] == ["hi"]
    big = analyze(text, "data/f.dataset.jsonl", _workspace(max_dataset_file_size=10))
    assert big.path == "data/f.dataset.jsonl" and [p.code for p in big.problems] == ["too-large"]


def _workspace(**config: object):
    from checkspec.engine.spec.workspace import Workspace

    return Workspace(config=WorkspaceConfig(**config))  # type: ignore[arg-type]


def test_missing_parameters_of_custom_checks_point_at_the_item() -> None:
    text = (
        "custom_checks:\n  - params: {type: equals, expected_value: 1}\n  - identifier: custom_y\n"
    )
    assert problems(text, "checkspec.yaml") == [
        (
            "missing-parameter",
            "checkspec.yaml is missing required parameter 'identifier'",
            Range(Position(1, 4), Position(1, 4)),
        ),
        (
            "missing-parameter",
            "checkspec.yaml is missing required parameter 'params'",
            Range(Position(2, 4), Position(2, 4)),
        ),
    ]
    assert problems("name: d\nscenarios: []\nextra: 1\n", "f.dataset.yaml") == [
        (
            "unknown-field",
            "unknown field 'extra' in a dataset",
            Range(Position(2, 0), Position(2, 5)),
        )
    ]


def test_custom_kinds_are_offered_in_name_order_after_the_built_in_ones() -> None:
    from checkspec.engine.spec.workspace import Workspace
    from checkspec.engine.spec.workspace_config import CustomCheck

    workspace = Workspace(
        config=WorkspaceConfig(
            custom_checks=[
                CustomCheck(identifier="custom_b", params={"type": "equals", "expected_value": 1}),
                CustomCheck(identifier="custom_a", params={"type": "no_such_check"}),
            ]
        )
    )
    text = "name: x\nsteps:\n  - checks:\n      - kind: cu\n"
    from checkspec.server.analysis.completion import complete

    found = complete(analyze(text, "t.scenario.yaml", workspace), text, Position(3, 16), workspace)
    customs = [
        (c.label, c.sort, c.detail, c.documentation[:40])
        for c in found
        if c.label.startswith("custom_")
    ]
    assert customs == [
        ("custom_a", "1000", "custom no_such_check check", ""),
        ("custom_b", "1001", "custom equals check", "**custom_b** — custom check based on `eq"),
    ]


def test_rego_errors_keep_the_message_and_its_place() -> None:
    from checkspec.engine.checks.rego_policy import RegoError, parse_rego_error

    raw = "error: unexpected token\n --> policy.rego:3:7\n  |\nStack backtrace:\n  0: x"
    assert parse_rego_error(raw) == RegoError("unexpected token", 3, 7)
    assert str(parse_rego_error(raw)) == "unexpected token at line 3, column 7"
    assert parse_rego_error("something broke\nmore") == RegoError("something broke")
    assert str(RegoError("plain")) == "plain"
    assert parse_rego_error("") == RegoError("invalid policy")
    assert parse_rego_error("  Stack backtrace:\n x") == RegoError("invalid policy")


def test_flow_values_spanning_lines_are_typed_up_to_the_cursor() -> None:
    # A quoted flow value that goes on on the next line: it is replaced up to the end of
    # the cursor's line.
    text = 'steps:\n  - checks:\n      - {kind: "equ\n          als"}\n'
    found = cursor_context(text, Position(2, 17), source=parse_source(text))
    assert found is not None
    assert (found.key, found.prefix, found.quoted) == ("kind", "e", True)
    assert found.replace == Range(Position(2, 16), Position(2, 19))


def test_a_list_item_inside_a_custom_check_is_explained() -> None:
    from checkspec.engine.spec.workspace import Workspace
    from checkspec.engine.spec.workspace_config import CustomCheck
    from checkspec.server.analysis.hover import hover

    workspace = Workspace(
        config=WorkspaceConfig(
            custom_checks=[CustomCheck(identifier="custom_tox", params={"type": "toxicity"})]
        )
    )
    text = dedent(
        """
        name: f
        scenarios:
          - interactions:
              - input: {messages: [{role: user, content: hi}]}
                checks:
                  - identifier: custom_tox
                    params: {categories: [threats]}
        """
    )
    found = hover(analyze(text, "f.dataset.yaml", workspace), Position(6, 34), workspace)
    assert found is not None and found.markdown.startswith("**categories**")


def test_the_cursor_is_found_where_the_tree_cannot_help() -> None:
    # The document does not parse: only the reading by lines knows where the cursor is.
    broken = 'steps:\n  - checks:\n      - "kind": eq\n    bad: [\n'
    found = cursor_context(broken, Position(2, 18), source=parse_source(broken))
    assert found is not None and (found.key, found.prefix) == ("kind", "eq")
    doubled = "\"a''b\": va\n"  # '' is an escape only in single quotes
    assert cursor_context(doubled, Position(0, 10)).key == "a''b"


def test_a_block_scalar_list_item_is_skipped_as_text() -> None:
    text = "name: x\nsteps:\n  - checks:\n      - kind: toxicity\n        categories:\n          - |\n            text\n        out\n"
    found = cursor_context(text, Position(7, 11))
    assert found is not None and found.path == ["steps", 0, "checks", 0] and found.prefix == "out"


def test_only_selectors_are_read_as_trace_paths() -> None:
    text = "name: x\nsteps:\n  - checks:\n      - {kind: string_matching, keyword: trace.nope}\n"
    assert analyze(text, "t.scenario.yaml").all_problems == []


def test_finding_past_the_end_of_a_list_finds_nothing() -> None:
    root = parse_source("a: [1, 2]\n").root
    assert root.find(["a", 1]).value == 2
    assert root.find(["a", 2]) is None and root.find(["a", -1]) is None


def test_params_of_a_custom_check_complete_its_base_parameters() -> None:
    text = dedent(
        """
        name: f
        scenarios:
          - interactions:
              - input: {messages: [{role: user, content: hi}]}
                checks:
                  - identifier: custom_polite
                    params:
                      case_
        """
    )
    assert "case_sensitive" in labels(items(text, "case_", "f.dataset.yaml"))


async def test_readability_bounds_are_inclusive_and_details_name_the_guide() -> None:
    from checkspec.engine import Readability, Trace

    trace = Trace.model_validate(
        {"interactions": [{"inputs": "q", "outputs": "The cat sat on the mat."}]}
    )
    measured = await Readability(metric="automated_readability_index").run(trace)
    score = measured.details["score"]
    at_min = await Readability(metric="automated_readability_index", min_score=score).run(trace)
    at_max = await Readability(metric="automated_readability_index", max_score=score).run(trace)
    assert at_min.passed and at_max.passed
    assert measured.details == {
        "target_key": "trace.last.outputs",
        "metric": "automated_readability_index",
        "score_guide": "US school grade, lower is easier; 8-10 is general.",
        "min_score": None,
        "max_score": None,
        "text": "The cat sat on the mat.",
        "score": score,
    }
    assert [(m.name, m.value) for m in measured.metrics] == [("automated_readability_index", score)]


async def test_a_missing_text_is_an_error_that_keeps_its_details() -> None:
    from checkspec.engine import StringMatching, Trace

    trace = Trace.model_validate({"interactions": [{"inputs": "q", "outputs": "a"}]})
    result = await StringMatching(keyword="a", target_key="trace.last.metadata.t").run(trace)
    assert result.message == "No value found for text key 'trace.last.metadata.t'."
    assert result.details == {"text": NoMatch("trace.last.metadata.t"), "keyword": "a"}


def test_a_custom_check_broken_in_checkspec_yaml_is_reported_where_it_is_used() -> None:
    from checkspec.engine.spec.workspace import Workspace
    from checkspec.engine.spec.workspace_config import CustomCheck

    workspace = Workspace(
        config=WorkspaceConfig(
            custom_checks=[
                CustomCheck(
                    identifier="custom_re", params={"type": "regex_matching", "pattern": "(a"}
                )
            ]
        )
    )
    text = dedent(
        """
        name: f
        scenarios:
          - description: the first
            interactions:
              - input: {messages: [{role: user, content: hi}]}
                extra: 1
                checks:
                  - identifier: custom_re
        """
    )
    document = analyze(text, "f.dataset.yaml", workspace)
    assert [(p.code, p.message, p.range.start) for p in document.all_problems] == [
        ("unknown-field", "unknown field 'extra' in an interaction", Position(5, 8)),
        ("regex-syntax", "invalid regex: missing )", Position(7, 24)),
    ]
    good = analyze(text.replace("        extra: 1\n", ""), "f.dataset.yaml")
    assert good.scenarios[0].scenario is None  # custom_re is unknown without the workspace


def test_a_dataset_record_keeps_its_description_and_suites_refuse_nested_schemas() -> None:
    text = "name: f\nscenarios:\n  - description: the first\n    interactions:\n      - input: {messages: [{role: user, content: hi}]}\n"
    (entry,) = analyze(text, "f.dataset.yaml").scenarios
    assert entry.scenario.description == "the first"
    suite = "name: s\nscenarios:\n  - name: a\n    $schema: x\n    steps: []\n"
    assert [p.message for p in analyze(suite, "s.suite.yaml").all_problems] == [
        "unknown field '$schema' in a scenario"
    ]


def test_a_reused_scenario_takes_its_new_index() -> None:
    from checkspec.engine.spec import scenario_analysis as module

    one = "  - name: b\n    steps: []\n"
    before = analyze("name: s\nscenarios:\n" + one, "s.suite.yaml")
    after = analyze("name: s\nscenarios:\n  - name: a\n    steps: []\n" + one, "s.suite.yaml")
    assert before.scenarios[0].index == 0
    assert [(e.name, e.index) for e in after.scenarios] == [("a", 0), ("b", 1)]
    assert module._CACHE  # (the second file reused the analysis of `b`)  # noqa: SLF001 (a private helper's own test)


def test_text_that_is_not_unicode_and_libyaml_depth_are_placed() -> None:
    (bad,) = parse_source("a: \udc80\n").problems
    assert (bad.code, bad.message, bad.range) == (
        "syntax",
        "text is not valid Unicode (found U+DC80)",
        Range(Position(0, 3), Position(0, 3)),
    )
    (deep,) = parse_source("[" * 1001 + "]" * 1001, max_depth=5000).problems
    assert deep.message == "nesting is deeper than 1000 levels"
    assert deep.range.start == deep.range.end


async def test_a_rule_that_is_false_fails_with_its_details() -> None:
    from checkspec.engine import RegoPolicy, Trace

    policy = "package g\n\ndefault allow := false\n\nallow if {\n    input.ok\n}\n"
    trace = Trace.model_validate({"interactions": [{"inputs": "q", "outputs": {"ok": False}}]})
    result = await RegoPolicy(policy=policy, rule="data.g.allow").run(trace)
    assert (result.status, result.message) == ("fail", "Rule 'data.g.allow' evaluated to false.")
    assert result.details == {
        "target_key": "trace.last.outputs",
        "data": {},
        "rule": "data.g.allow",
        "input": {"ok": False},
        "value": False,
    }


def test_a_description_that_is_not_text_is_not_kept() -> None:
    text = "name: f\nscenarios:\n  - description: 3\n    interactions:\n      - input: {messages: [{role: user, content: hi}]}\n"
    (entry,) = analyze(text, "f.dataset.yaml").scenarios
    assert entry.scenario is not None and entry.scenario.description is None


def test_explicit_collection_tags_and_escapes_yaml_cannot_read() -> None:
    source = parse_source("a: !!map {b: 1}\nc: !!seq [1]\nd: !!set {x}\ne: !!omap [{k: 1}]\n")
    assert source.problems == []
    assert source.root.value == {"a": {"b": 1}, "c": [1], "d": {"x": None}, "e": [{"k": 1}]}
    surrogate = parse_source('{"a": "\\udc80"}', json=True)  # valid JSON, not YAML
    assert surrogate.problems == [] and surrogate.root.value == {"a": "\udc80"}
    (control,) = parse_source("a: 1\nb: 2\nc: x\x07y\n").problems
    assert (control.message, control.range.start) == (
        "control characters are not allowed (found U+0007)",
        Position(2, 4),
    )


def test_a_refused_file_is_one_problem_at_its_start(tmp_path) -> None:
    from tests.support.project_files import load_file

    path = tmp_path / "x.scenario.yaml"
    path.write_bytes(b"\xff")
    (problem,) = load_file(path).problems
    assert problem.range == Range(Position(0, 0), Position(0, 0))
