"""Every problem the located document reports for a family of wrong files, exactly: range
(0-based line:character), severity, code, message and quick fix, as an editor shows them.

The cases cover the structure of each file kind (scenario, suite, dataset, checkspec.yaml),
the shapes a step, an interaction or a check can take, and the checks' own lints.
"""

from __future__ import annotations

import pytest

from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Problem


def shown(problem: Problem) -> str:
    r = problem.range
    text = (
        f"{r.start.line}:{r.start.character}-{r.end.line}:{r.end.character} "
        f"{problem.severity.value} {problem.code}: {problem.message}"
    )
    if problem.fix:
        edits = "; ".join(
            f"{e.range.start.line}:{e.range.start.character}-{e.range.end.line}:"
            f"{e.range.end.character}={e.new_text!r}"
            for e in problem.fix
        )
        text += f" | {edits} ({problem.fix_title})"
    return text


CASES = [
    (
        "root-list",
        "t.scenario.yaml",
        "- a\n- b\n",
        [
            "0:0-2:0 error invalid-structure: a scenario file must be a mapping",
        ],
        [],
    ),
    (
        "scalar-root",
        "t.suite.yaml",
        "just text\n",
        [
            "0:0-0:9 error invalid-structure: a suite file must be a mapping",
        ],
        [],
    ),
    (
        "no-name",
        "t.scenario.yaml",
        "steps:\n  - interacts: [{inputs: a, outputs: b}]\n    checks: [{kind: string_matching, keyword: b}]\n",
        [
            "0:0-0:0 error missing-parameter: a scenario needs a 'name'",
        ],
        ["scenario 1"],
    ),
    (
        "name-not-string",
        "t.scenario.yaml",
        "name: [1, 2]\ntarget: 42\ntags: [a, 3, {b: c}]\nsteps: {}\n",
        [
            "0:6-0:12 error invalid-value: name must be a string",
            "1:8-1:10 error invalid-value: target must be a string",
            "2:10-2:11 error invalid-value: a tag must be a string",
            "2:13-2:19 error invalid-value: a tag must be a string",
            "3:7-3:9 error invalid-structure: steps must be a list",
        ],
        ["scenario 1"],
    ),
    (
        "tags-not-list",
        "t.scenario.yaml",
        "name: x\ntags: billing\nsteps: []\n",
        [
            "1:6-1:13 error invalid-structure: tags must be a list",
        ],
        ["x"],
    ),
    (
        "unknown-top-key",
        "t.scenario.yaml",
        "name: x\nstepz: []\ndescripton: y\n",
        [
            "0:6-0:7 warning empty-scenario: this scenario has no 'steps': it checks nothing",
            "1:0-1:5 error unknown-field: unknown field 'stepz' in a scenario; did you mean 'steps'? | 1:0-1:5='steps' (Change to 'steps')",
            "2:0-2:10 error unknown-field: unknown field 'descripton' in a scenario; did you mean 'description'? | 2:0-2:10='description' (Change to 'description')",
        ],
        ["x"],
    ),
    (
        "step-shapes",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - just a string\n  - interacts: notalist\n    checks: notalist\n  - interacts:\n      - 42\n      - {kind: interact}\n      - {kind: nope, inputs: a}\n      - {inputs: a, outputz: b}\n    checks:\n      - 7\n      - {keyword: a}\n      - {kind: 5}\n  - {checkz: []}\n",
        [
            "2:4-2:17 error invalid-structure: a step must be a mapping",
            "3:15-3:23 error invalid-structure: interacts must be a list",
            "4:12-4:20 error invalid-structure: checks must be a list",
            "6:8-6:10 error invalid-value: interaction: Input should be a valid dictionary or instance of InteractionSpec",
            "7:8-7:8 error missing-parameter: interact is missing required parameter 'inputs'",
            "8:15-8:19 error unknown-kind: unknown interaction kind 'nope'",
            "9:20-9:27 error unknown-parameter: unknown parameter 'outputz' for interaction; did you mean 'outputs'? | 9:20-9:27='outputs' (Change to 'outputs')",
            "11:8-11:9 error invalid-structure: a check must be a mapping",
            "12:8-12:8 error missing-parameter: a check needs 'kind' naming the check (e.g. string_matching)",
            "13:15-13:16 error missing-parameter: a check needs 'kind' naming the check (e.g. string_matching)",
            "14:5-14:11 error unknown-field: unknown field 'checkz' in a step; did you mean 'checks'? | 14:5-14:11='checks' (Change to 'checks')",
        ],
        ["x"],
    ),
    (
        "bad-target-shapes",
        "t.scenario.yaml",
        "name: x\ntarget: python:nocolon\nsteps: []\n",
        [
            "1:8-1:22 error bad-target: python target must look like 'python:package.module:function', got 'python:nocolon'",
        ],
        ["x"],
    ),
    (
        "suite-shapes",
        "t.suite.yaml",
        "name: s\ntarget: ftp://x\nscenarios:\n  - name: a\n    steps: []\n  - 3\n  - name: b\n    steps:\n      - checks: [{kind: strng_matching, keyword: a}]\n",
        [
            "1:8-1:15 error bad-target: unknown target 'ftp://x': use 'python:package.module:function' or an http(s):// URL",
            "5:4-5:5 error invalid-structure: a scenario must be a mapping",
            "8:24-8:38 error unknown-kind: unknown check 'strng_matching'; did you mean 'string_matching'? | 8:24-8:38='string_matching' (Change to 'string_matching')",
        ],
        ["a", "scenario 2", "b"],
    ),
    (
        "suite-scenarios-not-list",
        "t.suite.yaml",
        "name: s\nscenarios: {a: 1}\n",
        [
            "1:11-1:17 error invalid-structure: scenarios must be a list",
        ],
        [],
    ),
    (
        "suite-unknown-key",
        "t.suite.yaml",
        "name: s\nscenarioz: []\n",
        [
            "0:0-0:0 error missing-parameter: a suite needs 'scenarios'",
            "1:0-1:9 error unknown-field: unknown field 'scenarioz' in a suite; did you mean 'scenarios'? | 1:0-1:9='scenarios' (Change to 'scenarios')",
        ],
        [],
    ),
    (
        "interaction-kind-typo",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - interacts:\n      - {kind: with_spi, inputs: a}\n      - {kind: interakt, inputs: a}\n",
        [
            "3:15-3:23 error unknown-kind: unknown interaction kind 'with_spi'; did you mean 'with_spy'? | 3:15-3:23='with_spy' (Change to 'with_spy')",
            "4:15-4:23 error unknown-kind: unknown interaction kind 'interakt'; did you mean 'interact'? | 4:15-4:23='interact' (Change to 'interact')",
        ],
        ["x"],
    ),
    (
        "nested-unknown",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - interacts: [{inputs: a, outputs: b}]\n    checks:\n      - kind: all_of\n        checks:\n          - {kind: strin_matching, keyword: a}\n          - {kind: not, check: {kind: regex_matching}}\n          - {kind: equals, expected_value: 1, expected_value_key: trace.last.outputs, keywrd: 2}\n",
        [
            "6:19-6:33 error unknown-kind: unknown check kind 'strin_matching'; did you mean 'string_matching'? | 6:19-6:33='string_matching' (Change to 'string_matching')",
            "7:38-7:52 error missing-parameter: regex_matching needs 'pattern' or 'pattern_key'",
            "8:86-8:92 error unknown-parameter: unknown parameter 'keywrd' for equals",
        ],
        ["x"],
    ),
    (
        "dataset-shapes",
        "f.dataset.yaml",
        "name: faq\ndescription: 3\ntarget: python:agent:answer\ninput_schema: {type: object, required: [messages]}\noutput_schema: {type: objec}\nscenarios:\n  - interactions:\n      - input: {messages: []}\n        output: {response: {content: hi}}\n        checks:\n          - identifier: string_matching\n            params: {keyword: hi}\n          - identifier: strng_matching\n          - {params: {}}\n          - identifier: custom_nope\n      - input: not an object\n    tags: [x]\n  - notamapping\n  - interactions: 5\n  - name: third\n    interactionz: []\n",
        [
            "4:15-4:28 error invalid-schema: output_schema: invalid JSON Schema at type: 'objec' is not valid under any of the given schemas",
            "12:24-12:38 error unknown-kind: unknown check 'strng_matching'; did you mean 'string_matching'? | 12:24-12:38='string_matching' (Change to 'string_matching')",
            "13:12-13:12 error missing-parameter: a check needs 'identifier' naming the check (e.g. string_matching)",
            "14:24-14:35 error unknown-custom-check: unknown custom check 'custom_nope' (checkspec.yaml: none are defined)",
            "15:15-15:28 error schema-mismatch: input does not match the dataset's input_schema: 'not an object' is not of type 'object'",
            "17:4-17:15 error invalid-structure: a dataset scenario must be a mapping",
            "18:18-18:19 error invalid-structure: interactions must be a list",
            "19:4-19:4 error missing-parameter: a dataset scenario needs 'interactions'",
            "20:4-20:16 error unknown-field: unknown field 'interactionz' in a dataset scenario; did you mean 'interactions'? | 20:4-20:16='interactions' (Change to 'interactions')",
        ],
        ["faq #1", "faq #2", "faq #3", "third"],
    ),
    (
        "dataset-check-shapes",
        "f.dataset.yaml",
        'name: faq\nscenarios:\n  - interactions:\n      - input: hi\n        checks:\n          - 5\n          - identifier: equals\n            params: 7\n          - identifier: equals\n            params: {expected_value: 1, expected_valu: 2}\n          - identifier: regex_matching\n            params: {pattern: "(a"}\n          - identifier: json_valid\n            extra: 1\n',
        [
            "3:15-3:17 error schema-mismatch: input does not match the dataset's input_schema: 'hi' is not of type 'object'",
            "5:12-5:13 error invalid-structure: a check must be a mapping",
            "7:20-7:21 error invalid-structure: params must be a mapping",
            "9:40-9:53 error unknown-parameter: unknown parameter 'expected_valu' for equals; did you mean 'expected_value'? | 9:40-9:53='expected_value' (Change to 'expected_value')",
            "11:33-11:34 error regex-syntax: invalid regex: missing )",
            "13:12-13:17 error unknown-field: unknown field 'extra' in a dataset check",
        ],
        ["hi"],
    ),
    (
        "config",
        "checkspec.yaml",
        "model: 5\ntarget: nope\nmax_file_size: -3\ncustom_checks:\n  - identifier: polite\n    name: P\n    params: {type: string_matching, keyword: please}\n  - identifier: custom_ok\n    params: {type: string_matching, keyword: please}\n  - identifier: custom_ok\n    params: {type: string_matching, keyword: again}\n  - identifier: custom_bad\n    params: {type: strng_matching}\n  - identifier: custom_missing\n    params: {type: regex_matching}\n  - identifier: custom_notype\n    params: {keyword: a}\n  - 3\nunknown_setting: 1\n",
        [
            "0:7-0:8 error invalid-value: model: Input should be a valid string",
            "2:15-2:17 error invalid-value: max_file_size: Input should be greater than or equal to 1",
            "4:16-4:22 error invalid-value: custom_checks.0.identifier: String should match pattern '^custom_[A-Za-z0-9_]+$'",
            "12:19-12:33 error unknown-kind: unknown check type 'strng_matching'; did you mean 'string_matching'? | 12:19-12:33='string_matching' (Change to 'string_matching')",
            "14:19-14:33 error missing-parameter: regex_matching needs 'pattern' or 'pattern_key'",
            "16:12-16:24 error invalid-value: custom_checks.5.params: params needs a 'type': the built-in check identifier to configure",
            "17:4-17:5 error invalid-value: custom_checks.6: Input should be a valid dictionary or instance of CustomCheck",
            "18:0-18:15 error unknown-parameter: unknown parameter 'unknown_setting' for checkspec.yaml",
        ],
        [],
    ),
    (
        "lint-and-paths",
        "t.scenario.yaml",
        'name: x\nsteps:\n  - interacts: [{inputs: a, outputs: b}]\n    checks:\n      - kind: regex_matching\n        pattern: "ab(c"\n      - kind: string_matching\n        keyword: a\n        target_key: trace.last.output\n      - kind: equals\n        key: trace.last.outputs\n        expected_value: b\n      - kind: string_matching\n        keyword: a\n        text_key: trace.interactions[0].outputs\n      - kind: equals\n        target_key: trace.last.outputs\n        key: trace.last.outputs\n        expected_value: 1\n      - kind: json_valid\n        expected_schema: {type: 3}\n      - kind: llm_judge\n        prompt: "Hello {{ trace.last.outputs "\n      - kind: string_matching\n        keyword: a\n        target_key: "last.outputs"\n      - kind: string_matching\n        keyword: a\n        target_key: "trace.[["\n      - kind: equals\n        target_key: trace.annotations.user\n        expected_value: 1\n      - kind: equals\n        target_key: trace.interactions[0].metadata.x\n        expected_value: 1\n      - kind: string_matching\n        keyword: 5\n',
        [
            "5:22-5:23 error regex-syntax: invalid regex: missing )",
            "8:20-8:37 warning unknown-trace-field: trace.last has no field 'output' (it has inputs, outputs, metadata); did you mean 'outputs'?",
            "10:8-10:11 warning deprecated-alias: 'key' is a deprecated name for 'target_key' | 10:8-10:11='target_key' (Rename to 'target_key')",
            "14:8-14:16 warning deprecated-alias: 'text_key' is a deprecated name for 'target_key' | 14:8-14:16='target_key' (Rename to 'target_key')",
            "15:8-19:6 error invalid-value: equals: give the selector once: target_key, key are the same field (use 'target_key')",
            "17:8-17:11 warning deprecated-alias: 'key' is a deprecated name for 'target_key' | 17:8-17:11='target_key' (Rename to 'target_key')",
            "20:25-20:34 error invalid-schema: expected_schema: Provided JSON Schema is invalid: invalid JSON Schema at type: 3 is not valid under any of the given schemas",
            "22:17-22:18 error template-syntax: Jinja2: unexpected end of template, expected 'end of print statement'.",
            "25:20-25:34 error bad-jsonpath: Invalid JSONPath expression 'last.outputs': path must start with 'trace.' (for example 'trace.last.outputs')",
            "28:20-28:30 error bad-jsonpath: Invalid JSONPath expression 'trace.[[': Parse error at 1:7 near token [ ([)",
            "36:17-36:18 error invalid-value: keyword: Input should be a valid string",
        ],
        ["x"],
    ),
    (
        "trace-paths",
        "t.scenario.yaml",
        'name: x\nsteps:\n  - interacts: [{inputs: a, outputs: b}]\n    checks:\n      - {kind: equals, expected_value: 1, target_key: trace.nope}\n      - {kind: equals, expected_value: 1, target_key: trace.lst.outputs}\n      - {kind: equals, expected_value: 1, target_key: "trace.interactions[0].output"}\n      - {kind: equals, expected_value: 1, target_key: "trace.interactions[0].outputs.anything.deep"}\n      - {kind: equals, expected_value: 1, target_key: trace.annotations.user}\n      - {kind: equals, expected_value: 1, target_key: trace.last.metadata.x}\n      - {kind: equals, expected_value: 1, target_key: trace.last.inputs}\n      - {kind: equals, expected_value: 1, target_key: "trace.interactions[*].zz"}\n      - {kind: equals, expected_value: 1, target_key: trace.last.zzzzzz}\n      - {kind: equals, expected_value: 1, expected_value_key: trace.last.outputz}\n',
        [
            "4:54-4:64 warning unknown-trace-field: trace has no field 'nope' (it has interactions, last, annotations)",
            "5:54-5:71 warning unknown-trace-field: trace has no field 'lst' (it has interactions, last, annotations); did you mean 'last'?",
            "6:54-6:84 warning unknown-trace-field: trace.interactions has no field 'output' (it has inputs, outputs, metadata); did you mean 'outputs'?",
            "7:54-7:99 warning unresolved-trace-path: trace.interactions[0].outputs.anything.deep resolves to nothing in the recorded outputs: trace.interactions[0].outputs has no keys (it is text)",
            "12:54-12:71 warning unknown-trace-field: trace.last has no field 'zzzzzz' (it has inputs, outputs, metadata)",
            "13:42-13:60 error mutually-exclusive: 'expected_value' and 'expected_value_key' are mutually exclusive: give one of them",
        ],
        ["x"],
    ),
    (
        "nested-lints",
        "t.scenario.yaml",
        'name: x\nsteps:\n  - interacts: [{inputs: a, outputs: b}]\n    checks:\n      - kind: any_of\n        checks:\n          - {kind: regex_matching, pattern: "(a"}\n          - kind: not\n            check:\n              kind: string_matching\n              keyword: a\n              key: trace.last.outputs\n          - {kind: equals, expected_value: 1, target_key: trace.last.outputz}\n',
        [
            "6:47-6:48 error regex-syntax: invalid regex: missing )",
            "11:14-11:17 warning deprecated-alias: 'key' is a deprecated name for 'target_key' | 11:14-11:17='target_key' (Rename to 'target_key')",
            "12:58-12:76 warning unknown-trace-field: trace.last has no field 'outputz' (it has inputs, outputs, metadata); did you mean 'outputs'?",
        ],
        ["x"],
    ),
    (
        "jsonl",
        "f.dataset.jsonl",
        '{"interactions": [{"input": "hi", "checks": [{"identifier": "strng_matching", "params": {"keyword": "a"}}]}]}\nnot json\n{"name": "second", "interactions": [{"input": "x", "output": "y", "checks": [{"identifier": "string_matching", "params": {"keyword": "y"}}]}]}\n[1, 2]\n\n{"interactions": "bad"}\n',
        [
            "0:28-0:32 error schema-mismatch: input does not match the dataset's input_schema: 'hi' is not of type 'object'",
            "0:60-0:76 error unknown-kind: unknown check 'strng_matching'; did you mean 'string_matching'? | 0:60-0:76='string_matching' (Change to 'string_matching')",
            "1:0-1:0 error syntax: Expecting value",
            "2:46-2:49 error schema-mismatch: input does not match the dataset's input_schema: 'x' is not of type 'object'",
            "2:61-2:64 error schema-mismatch: output does not match the dataset's output_schema: 'y' is not of type 'object'",
            "3:0-3:6 error invalid-structure: a dataset scenario must be a mapping",
            "5:17-5:22 error invalid-structure: interactions must be a list",
        ],
        ["hi", "second", "line #3", "line #4"],
    ),
    (
        "json-scenario",
        "t.scenario.json",
        '{"name": "j", "steps": [{"interacts": [{"inputs": "a", "outputs": "b"}], "checks": [{"kind": "equalz", "expected_value": 1}]}]}\n',
        [
            "0:93-0:101 error unknown-kind: unknown check 'equalz'; did you mean 'equals'? | 0:93-0:101='equals' (Change to 'equals')",
        ],
        ["j"],
    ),
    (
        "schema-kind",
        "notes.yaml",
        "$schema: ../schemas/suite.schema.json\nname: s\nscenarios: []\n",
        [],
        [],
    ),
    (
        "unknown-kind-file",
        "notes.yaml",
        "name: s\n",
        [
            "0:0-0:0 error unknown-file-kind: cannot tell the kind of this file: name it *.scenario.yaml, *.suite.yaml, *.dataset.yaml or checkspec.yaml, or add a top-level $schema",
        ],
        [],
    ),
    (
        "annotations-bad",
        "t.scenario.yaml",
        "name: x\ndescription: [1]\nannotations: [1, 2]\nsteps: []\n",
        [
            "1:13-1:16 error invalid-value: description must be a string",
            "2:13-2:19 error invalid-value: annotations must be a mapping",
        ],
        ["x"],
    ),
]


@pytest.mark.parametrize(
    ("name", "path", "text", "problems", "scenarios"), CASES, ids=[c[0] for c in CASES]
)
def test_problems_are_reported_exactly(
    name: str, path: str, text: str, problems: list[str], scenarios: list[str]
) -> None:
    document = analyze(text, path, None)
    assert [shown(p) for p in document.all_problems] == problems
    assert [entry.name for entry in document.scenarios] == scenarios
    for entry in document.scenarios:  # a scenario with an error is never runnable
        has_error = any(p.severity.value == "error" for p in entry.problems)
        assert (entry.scenario is None) == has_error or not entry.problems
