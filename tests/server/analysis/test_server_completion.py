"""What completion offers at each kind of place, item by item: label, kind, the text
inserted, the range it replaces, detail, sort key and the first line of its documentation
(server/analysis/completion.py). The cursor is marked with ‸."""

from __future__ import annotations

import pytest

from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Position
from checkspec.server.analysis.completion import Completion, complete
from tests.support.analysis import WORKSPACE


def shown(c: Completion) -> str:
    r = c.replace
    return (
        f"{c.label} | {c.kind.value} | {c.insert!r} | "
        f"{r.start.line}:{r.start.character}-{r.end.line}:{r.end.character} | {c.detail} | "
        f"{c.sort} | {c.documentation.split(chr(10))[0][:50]}"
    )


CASES = [
    (
        "top keys",
        "t.scenario.yaml",
        "name: x\n‸\n",
        None,
        [
            "description | field | 'description: ' | 1:0-1:0 | string | null | 2001 | **description**: `string | null` — in a scenario",
            "target | field | 'target: ' | 1:0-1:0 | string | null | 2002 | **target**: `string | null` — in a scenario",
            "tags | field | 'tags: ' | 1:0-1:0 | list[string] | 2003 | **tags**: `list[string]` — in a scenario",
            "annotations | field | 'annotations: ' | 1:0-1:0 | mapping | 2004 | **annotations**: `mapping` — in a scenario",
            "steps | field | 'steps: ' | 1:0-1:0 | list[Step] | 2005 | **steps**: `list[Step]` — in a scenario",
            "multiple_runs | field | 'multiple_runs: ' | 1:0-1:0 | integer | 2006 | **multiple_runs**: `integer` — in a scenario",
            "status | field | 'status: ' | 1:0-1:0 | 'active' | 'draft' | null | 2007 | **status**: `'active' | 'draft' | null` — in a sce",
            "comments | field | 'comments: ' | 1:0-1:0 | list[ScenarioComment] | 2008 | **comments**: `list[ScenarioComment]` — in a scena",
            "$schema | field | '$schema: ' | 1:0-1:0 | string | 2009 | **$schema**: `string` — in a scenario",
        ],
    ),
    (
        "top keys need space",
        "t.scenario.yaml",
        "name: x\nsteps:\n  -‸\n",
        None,
        [
            "interacts | field | ' interacts: ' | 2:3-2:3 | list[interaction] | 2000 | **interacts**: `list[interaction]` — in a step",
            "checks | field | ' checks: ' | 2:3-2:3 | list[check] | 2001 | **checks**: `list[check]` — in a step",
        ],
    ),
    (
        "check keys",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - checks:\n      - kind: equals\n        ‸\n",
        None,
        [
            "target_key | field | 'target_key: ' | 4:8-4:8 | JSONPath | 2000 | **target_key**: `JSONPath` — equals check",
            "expected_value | field | 'expected_value: ' | 4:8-4:8 | any | 1001 | **expected_value**: `any` — equals check",
            "expected_value_key | field | 'expected_value_key: ' | 4:8-4:8 | JSONPath | 2002 | **expected_value_key**: `JSONPath` — equals check",
            "normalization_form | field | 'normalization_form: ' | 4:8-4:8 | 'NFC' | 'NFD' | 'NFKC' | 'NFKD' | null | 2003 | **normalization_form**: `'NFC' | 'NFD' | 'NFKC' | ",
            "match | field | 'match: ' | 4:8-4:8 | 'any' | 'all' | 'none' | 2004 | **match**: `'any' | 'all' | 'none'` — equals check",
            "name | field | 'name: ' | 4:8-4:8 | string | null | 2006 | **name**: `string | null` — equals check",
            "description | field | 'description: ' | 4:8-4:8 | string | null | 2007 | **description**: `string | null` — equals check",
            "enabled | field | 'enabled: ' | 4:8-4:8 | boolean | 2008 | **enabled**: `boolean` — equals check",
        ],
    ),
    (
        "check keys json between entries",
        "t.scenario.json",
        '{"name": "x", "steps": [{"checks": [{"kind": "equals",‸ "target_key": "trace.last"}]}]}',
        None,
        [
            "expected_value | field | '\"expected_value\": ' | 0:54-0:54 | any | 1001 | **expected_value**: `any` — equals check",
            "expected_value_key | field | '\"expected_value_key\": ' | 0:54-0:54 | JSONPath | 2002 | **expected_value_key**: `JSONPath` — equals check",
            "normalization_form | field | '\"normalization_form\": ' | 0:54-0:54 | 'NFC' | 'NFD' | 'NFKC' | 'NFKD' | null | 2003 | **normalization_form**: `'NFC' | 'NFD' | 'NFKC' | ",
            "match | field | '\"match\": ' | 0:54-0:54 | 'any' | 'all' | 'none' | 2004 | **match**: `'any' | 'all' | 'none'` — equals check",
            "name | field | '\"name\": ' | 0:54-0:54 | string | null | 2006 | **name**: `string | null` — equals check",
            "description | field | '\"description\": ' | 0:54-0:54 | string | null | 2007 | **description**: `string | null` — equals check",
            "enabled | field | '\"enabled\": ' | 0:54-0:54 | boolean | 2008 | **enabled**: `boolean` — equals check",
        ],
    ),
    (
        "check key in json quoted",
        "t.scenario.json",
        '{"name": "x", "steps": [{"checks": [{"kind": "equals", "exp‸": 1}]}]}',
        None,
        [
            "target_key | field | 'target_key' | 0:56-0:59 | JSONPath | 2000 | **target_key**: `JSONPath` — equals check",
            "expected_value | field | 'expected_value' | 0:56-0:59 | any | 1001 | **expected_value**: `any` — equals check",
            "expected_value_key | field | 'expected_value_key' | 0:56-0:59 | JSONPath | 2002 | **expected_value_key**: `JSONPath` — equals check",
            "normalization_form | field | 'normalization_form' | 0:56-0:59 | 'NFC' | 'NFD' | 'NFKC' | 'NFKD' | null | 2003 | **normalization_form**: `'NFC' | 'NFD' | 'NFKC' | ",
            "match | field | 'match' | 0:56-0:59 | 'any' | 'all' | 'none' | 2004 | **match**: `'any' | 'all' | 'none'` — equals check",
            "name | field | 'name' | 0:56-0:59 | string | null | 2006 | **name**: `string | null` — equals check",
            "description | field | 'description' | 0:56-0:59 | string | null | 2007 | **description**: `string | null` — equals check",
            "enabled | field | 'enabled' | 0:56-0:59 | boolean | 2008 | **enabled**: `boolean` — equals check",
        ],
    ),
    (
        "kind value in json",
        "t.scenario.json",
        '{"name": "x", "steps": [{"checks": [{"kind": "eq‸"}]}]}',
        None,
        [
            "string_matching | check | 'string_matching' | 0:46-0:48 | Passes when the keyword occurs in the text (after normalization). | 0000 | ```yaml",
            "regex_matching | check | 'regex_matching' | 0:46-0:48 | Passes when the regular expression matches somewhere in the text. | 0001 | ```yaml",
            "equals | check | 'equals' | 0:46-0:48 | Passes when the value equals the expected value. | 0002 | ```yaml",
            "not_equals | check | 'not_equals' | 0:46-0:48 | Passes when the value differs from the expected value. | 0003 | ```yaml",
            "greater_than | check | 'greater_than' | 0:46-0:48 | Passes when the value is greater than the expected value. | 0004 | ```yaml",
            "greater_than_equals | check | 'greater_than_equals' | 0:46-0:48 | Passes when the value is greater than or equal to the expected value. | 0005 | ```yaml",
            "less_than | check | 'less_than' | 0:46-0:48 | Passes when the value is less than the expected value. | 0006 | ```yaml",
            "less_than_equals | check | 'less_than_equals' | 0:46-0:48 | Passes when the value is less than or equal to the expected value. | 0007 | ```yaml",
            "all_of | check | 'all_of' | 0:46-0:48 | Passes when every inner check passes; stops at the first failure or error. | 0008 | ```yaml",
            "any_of | check | 'any_of' | 0:46-0:48 | Passes when one inner check passes; stops at the first pass (or error). | 0009 | ```yaml",
            "not | check | 'not' | 0:46-0:48 | Inverts the inner check: pass <-> fail; error and skip pass through. | 0010 | ```yaml",
            "fn | check | 'fn' | 0:46-0:48 | Runs `fn(trace)`: True passes, False fails, a CheckResult is the result. | 0011 | ```yaml",
            "hub_metadata | check | 'hub_metadata' | 0:46-0:48 | Passes when every rule's path in the response metadata holds its expected value. | 0012 | ```yaml",
            "json_valid | check | 'json_valid' | 0:46-0:48 | Passes when the value is valid JSON, optionally matching a JSON Schema. | 0013 | ```yaml",
            "readability | check | 'readability' | 0:46-0:48 | Passes when the text's readability score is within the given bounds. | 0014 | ```yaml",
            "rego_policy | check | 'rego_policy' | 0:46-0:48 | Evaluates a Rego rule; true passes, false or undefined fails, other values error. | 0015 | ```yaml",
            "tool_called | check | 'tool_called' | 0:46-0:48 | Passes when the agent called the tool (with arguments that match, when given). | 0016 | ```yaml",
            "tools_in_order | check | 'tools_in_order' | 0:46-0:48 | Passes when the agent called these tools in this order (others may come between). | 0017 | ```yaml",
            "no_span_errors | check | 'no_span_errors' | 0:46-0:48 | Passes when no tool call and no model call of the agent ended in error. | 0018 | ```yaml",
            "max_model_calls | check | 'max_model_calls' | 0:46-0:48 | Passes when the agent called models at most `max_calls` times. | 0019 | ```yaml",
            "answer_relevance | check | 'answer_relevance' | 0:46-0:48 | Passes when the judge finds the answer relevant to the question (not necessarily right). | 0020 | ```yaml",
            "conformity | check | 'conformity' | 0:46-0:48 | Passes when the judge finds that the full trace follows the rule. | 0021 | ```yaml",
            "contradiction | check | 'contradiction' | 0:46-0:48 | Passes unless the answer states something the context rules out. | 0022 | ```yaml",
            "groundedness | check | 'groundedness' | 0:46-0:48 | Passes when every claim of the answer is supported by the context documents. | 0023 | ```yaml",
            "hub_correctness | check | 'hub_correctness' | 0:46-0:48 | Passes when the response contains all of the reference answer, without contradiction. | 0024 | ```yaml",
            "hub_groundedness | check | 'hub_groundedness' | 0:46-0:48 | Passes when the response adds nothing that the context does not support. | 0025 | ```yaml",
            "hub_conformity | check | 'hub_conformity' | 0:46-0:48 | Passes when the response follows every rule; each rule is judged on its own. | 0026 | ```yaml",
            "llm_judge | check | 'llm_judge' | 0:46-0:48 | Asks the judge model a custom question about the trace. | 0027 | ```yaml",
            "semantic_similarity | check | 'semantic_similarity' | 0:46-0:48 | Passes when the answer's meaning is close enough to the reference text. | 0028 | ```yaml",
            "toxicity | check | 'toxicity' | 0:46-0:48 | Passes when the judge finds none of the chosen categories of harm in the output. | 0029 | ```yaml",
            "custom_polite | check | 'custom_polite' | 0:46-0:48 | Polite | 1000 | **custom_polite** — custom check based on `string_",
        ],
    ),
    (
        "enum values",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - checks:\n      - kind: string_matching\n        normalization_form: ‸\n",
        None,
        [
            "NFC | value | 'NFC' | 4:28-4:28 | 'NFC' | 'NFD' | 'NFKC' | 'NFKD' | null | 0000 | `normalization_form`: Unicode normalization applie",
            "NFD | value | 'NFD' | 4:28-4:28 | 'NFC' | 'NFD' | 'NFKC' | 'NFKD' | null | 0001 | `normalization_form`: Unicode normalization applie",
            "NFKC | value | 'NFKC' | 4:28-4:28 | 'NFC' | 'NFD' | 'NFKC' | 'NFKD' | null | 0002 | `normalization_form`: Unicode normalization applie",
            "NFKD | value | 'NFKD' | 4:28-4:28 | 'NFC' | 'NFD' | 'NFKC' | 'NFKD' | null | 0003 | `normalization_form`: Unicode normalization applie",
        ],
    ),
    (
        "bool values no space",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - checks:\n      - kind: string_matching\n        case_sensitive:‸\n",
        None,
        [
            "true | value | ' true' | 4:23-4:23 | boolean | 0000 | `case_sensitive`: Whether matching is case-sensiti",
            "false | value | ' false' | 4:23-4:23 | boolean | 0001 | `case_sensitive`: Whether matching is case-sensiti",
        ],
    ),
    (
        "path starts",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - checks:\n      - kind: equals\n        target_key: ‸\n",
        None,
        [
            "trace. | path | 'trace.' | 4:20-4:20 | JSONPath into the trace | 0000 | JSONPath to the actual value under test.",
            "trace.last.outputs | path | 'trace.last.outputs' | 4:20-4:20 | JSONPath into the trace | 0001 | JSONPath to the actual value under test.",
        ],
    ),
    (
        "path after trace",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - interacts: [{inputs: a, outputs: {ans: 1, 'a b': 2}}]\n    checks:\n      - kind: equals\n        target_key: trace.‸\n",
        None,
        [
            "last | path | 'last' | 5:26-5:26 | the latest interaction | 0000 | The most recent interaction (None before the first",
            "interactions | path | 'interactions' | 5:26-5:26 | every interaction, oldest first: interactions[0], [-1]... | 0001 | ",
            "annotations | path | 'annotations' | 5:26-5:26 | mapping | 0002 | Scenario-level annotations injected at run start.",
        ],
    ),
    (
        "path recorded keys",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - interacts: [{inputs: a, outputs: {ans: 1, 'a b': 2}}]\n    checks:\n      - kind: equals\n        target_key: trace.last.outputs.a‸ns\n",
        None,
        [
            "ans | path | 'ans' | 5:39-5:42 | 1 | 0000 | Recorded in this scenario.",
            "a b | path | \"'a b'\" | 5:39-5:42 | 2 | 0001 | Recorded in this scenario.",
        ],
    ),
    (
        "path bad prefix",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - checks:\n      - kind: equals\n        target_key: trace.*.‸\n",
        None,
        [],
    ),
    (
        "dataset identifiers",
        "f.dataset.yaml",
        "name: f\nscenarios:\n  - interactions:\n      - input: hi\n        checks:\n          - identifier: ‸\n",
        None,
        [
            "string_matching | check | 'string_matching' | 5:24-5:24 | Passes when the keyword occurs in the text (after normalization). | 0000 | ```yaml",
            "regex_matching | check | 'regex_matching' | 5:24-5:24 | Passes when the regular expression matches somewhere in the text. | 0001 | ```yaml",
            "equals | check | 'equals' | 5:24-5:24 | Passes when the value equals the expected value. | 0002 | ```yaml",
            "not_equals | check | 'not_equals' | 5:24-5:24 | Passes when the value differs from the expected value. | 0003 | ```yaml",
            "greater_than | check | 'greater_than' | 5:24-5:24 | Passes when the value is greater than the expected value. | 0004 | ```yaml",
            "greater_than_equals | check | 'greater_than_equals' | 5:24-5:24 | Passes when the value is greater than or equal to the expected value. | 0005 | ```yaml",
            "less_than | check | 'less_than' | 5:24-5:24 | Passes when the value is less than the expected value. | 0006 | ```yaml",
            "less_than_equals | check | 'less_than_equals' | 5:24-5:24 | Passes when the value is less than or equal to the expected value. | 0007 | ```yaml",
            "all_of | check | 'all_of' | 5:24-5:24 | Passes when every inner check passes; stops at the first failure or error. | 0008 | ```yaml",
            "any_of | check | 'any_of' | 5:24-5:24 | Passes when one inner check passes; stops at the first pass (or error). | 0009 | ```yaml",
            "not | check | 'not' | 5:24-5:24 | Inverts the inner check: pass <-> fail; error and skip pass through. | 0010 | ```yaml",
            "fn | check | 'fn' | 5:24-5:24 | Runs `fn(trace)`: True passes, False fails, a CheckResult is the result. | 0011 | ```yaml",
            "hub_metadata | check | 'hub_metadata' | 5:24-5:24 | Passes when every rule's path in the response metadata holds its expected value. | 0012 | ```yaml",
            "json_valid | check | 'json_valid' | 5:24-5:24 | Passes when the value is valid JSON, optionally matching a JSON Schema. | 0013 | ```yaml",
            "readability | check | 'readability' | 5:24-5:24 | Passes when the text's readability score is within the given bounds. | 0014 | ```yaml",
            "rego_policy | check | 'rego_policy' | 5:24-5:24 | Evaluates a Rego rule; true passes, false or undefined fails, other values error. | 0015 | ```yaml",
            "tool_called | check | 'tool_called' | 5:24-5:24 | Passes when the agent called the tool (with arguments that match, when given). | 0016 | ```yaml",
            "tools_in_order | check | 'tools_in_order' | 5:24-5:24 | Passes when the agent called these tools in this order (others may come between). | 0017 | ```yaml",
            "no_span_errors | check | 'no_span_errors' | 5:24-5:24 | Passes when no tool call and no model call of the agent ended in error. | 0018 | ```yaml",
            "max_model_calls | check | 'max_model_calls' | 5:24-5:24 | Passes when the agent called models at most `max_calls` times. | 0019 | ```yaml",
            "answer_relevance | check | 'answer_relevance' | 5:24-5:24 | Passes when the judge finds the answer relevant to the question (not necessarily right). | 0020 | ```yaml",
            "conformity | check | 'conformity' | 5:24-5:24 | Passes when the judge finds that the full trace follows the rule. | 0021 | ```yaml",
            "contradiction | check | 'contradiction' | 5:24-5:24 | Passes unless the answer states something the context rules out. | 0022 | ```yaml",
            "groundedness | check | 'groundedness' | 5:24-5:24 | Passes when every claim of the answer is supported by the context documents. | 0023 | ```yaml",
            "hub_correctness | check | 'hub_correctness' | 5:24-5:24 | Passes when the response contains all of the reference answer, without contradiction. | 0024 | ```yaml",
            "hub_groundedness | check | 'hub_groundedness' | 5:24-5:24 | Passes when the response adds nothing that the context does not support. | 0025 | ```yaml",
            "hub_conformity | check | 'hub_conformity' | 5:24-5:24 | Passes when the response follows every rule; each rule is judged on its own. | 0026 | ```yaml",
            "llm_judge | check | 'llm_judge' | 5:24-5:24 | Asks the judge model a custom question about the trace. | 0027 | ```yaml",
            "semantic_similarity | check | 'semantic_similarity' | 5:24-5:24 | Passes when the answer's meaning is close enough to the reference text. | 0028 | ```yaml",
            "toxicity | check | 'toxicity' | 5:24-5:24 | Passes when the judge finds none of the chosen categories of harm in the output. | 0029 | ```yaml",
            "custom_polite | check | 'custom_polite' | 5:24-5:24 | Polite | 1000 | **custom_polite** — custom check based on `string_",
        ],
    ),
    (
        "config types",
        "checkspec.yaml",
        "custom_checks:\n  - identifier: custom_x\n    params:\n      type: ‸\n",
        None,
        [
            "string_matching | check | 'string_matching' | 3:12-3:12 | Passes when the keyword occurs in the text (after normalization). | 0000 | ```yaml",
            "regex_matching | check | 'regex_matching' | 3:12-3:12 | Passes when the regular expression matches somewhere in the text. | 0001 | ```yaml",
            "equals | check | 'equals' | 3:12-3:12 | Passes when the value equals the expected value. | 0002 | ```yaml",
            "not_equals | check | 'not_equals' | 3:12-3:12 | Passes when the value differs from the expected value. | 0003 | ```yaml",
            "greater_than | check | 'greater_than' | 3:12-3:12 | Passes when the value is greater than the expected value. | 0004 | ```yaml",
            "greater_than_equals | check | 'greater_than_equals' | 3:12-3:12 | Passes when the value is greater than or equal to the expected value. | 0005 | ```yaml",
            "less_than | check | 'less_than' | 3:12-3:12 | Passes when the value is less than the expected value. | 0006 | ```yaml",
            "less_than_equals | check | 'less_than_equals' | 3:12-3:12 | Passes when the value is less than or equal to the expected value. | 0007 | ```yaml",
            "all_of | check | 'all_of' | 3:12-3:12 | Passes when every inner check passes; stops at the first failure or error. | 0008 | ```yaml",
            "any_of | check | 'any_of' | 3:12-3:12 | Passes when one inner check passes; stops at the first pass (or error). | 0009 | ```yaml",
            "not | check | 'not' | 3:12-3:12 | Inverts the inner check: pass <-> fail; error and skip pass through. | 0010 | ```yaml",
            "fn | check | 'fn' | 3:12-3:12 | Runs `fn(trace)`: True passes, False fails, a CheckResult is the result. | 0011 | ```yaml",
            "hub_metadata | check | 'hub_metadata' | 3:12-3:12 | Passes when every rule's path in the response metadata holds its expected value. | 0012 | ```yaml",
            "json_valid | check | 'json_valid' | 3:12-3:12 | Passes when the value is valid JSON, optionally matching a JSON Schema. | 0013 | ```yaml",
            "readability | check | 'readability' | 3:12-3:12 | Passes when the text's readability score is within the given bounds. | 0014 | ```yaml",
            "rego_policy | check | 'rego_policy' | 3:12-3:12 | Evaluates a Rego rule; true passes, false or undefined fails, other values error. | 0015 | ```yaml",
            "tool_called | check | 'tool_called' | 3:12-3:12 | Passes when the agent called the tool (with arguments that match, when given). | 0016 | ```yaml",
            "tools_in_order | check | 'tools_in_order' | 3:12-3:12 | Passes when the agent called these tools in this order (others may come between). | 0017 | ```yaml",
            "no_span_errors | check | 'no_span_errors' | 3:12-3:12 | Passes when no tool call and no model call of the agent ended in error. | 0018 | ```yaml",
            "max_model_calls | check | 'max_model_calls' | 3:12-3:12 | Passes when the agent called models at most `max_calls` times. | 0019 | ```yaml",
            "answer_relevance | check | 'answer_relevance' | 3:12-3:12 | Passes when the judge finds the answer relevant to the question (not necessarily right). | 0020 | ```yaml",
            "conformity | check | 'conformity' | 3:12-3:12 | Passes when the judge finds that the full trace follows the rule. | 0021 | ```yaml",
            "contradiction | check | 'contradiction' | 3:12-3:12 | Passes unless the answer states something the context rules out. | 0022 | ```yaml",
            "groundedness | check | 'groundedness' | 3:12-3:12 | Passes when every claim of the answer is supported by the context documents. | 0023 | ```yaml",
            "hub_correctness | check | 'hub_correctness' | 3:12-3:12 | Passes when the response contains all of the reference answer, without contradiction. | 0024 | ```yaml",
            "hub_groundedness | check | 'hub_groundedness' | 3:12-3:12 | Passes when the response adds nothing that the context does not support. | 0025 | ```yaml",
            "hub_conformity | check | 'hub_conformity' | 3:12-3:12 | Passes when the response follows every rule; each rule is judged on its own. | 0026 | ```yaml",
            "llm_judge | check | 'llm_judge' | 3:12-3:12 | Asks the judge model a custom question about the trace. | 0027 | ```yaml",
            "semantic_similarity | check | 'semantic_similarity' | 3:12-3:12 | Passes when the answer's meaning is close enough to the reference text. | 0028 | ```yaml",
            "toxicity | check | 'toxicity' | 3:12-3:12 | Passes when the judge finds none of the chosen categories of harm in the output. | 0029 | ```yaml",
        ],
    ),
    (
        "list item values",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - checks:\n      - kind: toxicity\n        categories:\n          - ‸\n",
        None,
        [
            "hate_speech | value | 'hate_speech' | 5:12-5:12 | list['hate_speech' | 'harassment' | 'threats' | 'self_harm' | 'sexual_content' | 'violence'] | 0000 | `categories`: Categories of harm to look for: hate",
            "harassment | value | 'harassment' | 5:12-5:12 | list['hate_speech' | 'harassment' | 'threats' | 'self_harm' | 'sexual_content' | 'violence'] | 0001 | `categories`: Categories of harm to look for: hate",
            "threats | value | 'threats' | 5:12-5:12 | list['hate_speech' | 'harassment' | 'threats' | 'self_harm' | 'sexual_content' | 'violence'] | 0002 | `categories`: Categories of harm to look for: hate",
            "self_harm | value | 'self_harm' | 5:12-5:12 | list['hate_speech' | 'harassment' | 'threats' | 'self_harm' | 'sexual_content' | 'violence'] | 0003 | `categories`: Categories of harm to look for: hate",
            "sexual_content | value | 'sexual_content' | 5:12-5:12 | list['hate_speech' | 'harassment' | 'threats' | 'self_harm' | 'sexual_content' | 'violence'] | 0004 | `categories`: Categories of harm to look for: hate",
            "violence | value | 'violence' | 5:12-5:12 | list['hate_speech' | 'harassment' | 'threats' | 'self_harm' | 'sexual_content' | 'violence'] | 0005 | `categories`: Categories of harm to look for: hate",
        ],
    ),
    (
        "flow list values",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - checks:\n      - kind: toxicity\n        categories: [‸]\n",
        None,
        [
            "hate_speech | value | 'hate_speech' | 4:21-4:21 | list['hate_speech' | 'harassment' | 'threats' | 'self_harm' | 'sexual_content' | 'violence'] | 0000 | `categories`: Categories of harm to look for: hate",
            "harassment | value | 'harassment' | 4:21-4:21 | list['hate_speech' | 'harassment' | 'threats' | 'self_harm' | 'sexual_content' | 'violence'] | 0001 | `categories`: Categories of harm to look for: hate",
            "threats | value | 'threats' | 4:21-4:21 | list['hate_speech' | 'harassment' | 'threats' | 'self_harm' | 'sexual_content' | 'violence'] | 0002 | `categories`: Categories of harm to look for: hate",
            "self_harm | value | 'self_harm' | 4:21-4:21 | list['hate_speech' | 'harassment' | 'threats' | 'self_harm' | 'sexual_content' | 'violence'] | 0003 | `categories`: Categories of harm to look for: hate",
            "sexual_content | value | 'sexual_content' | 4:21-4:21 | list['hate_speech' | 'harassment' | 'threats' | 'self_harm' | 'sexual_content' | 'violence'] | 0004 | `categories`: Categories of harm to look for: hate",
            "violence | value | 'violence' | 4:21-4:21 | list['hate_speech' | 'harassment' | 'threats' | 'self_harm' | 'sexual_content' | 'violence'] | 0005 | `categories`: Categories of harm to look for: hate",
        ],
    ),
    (
        "space trigger in indentation",
        "t.scenario.yaml",
        "name: x\n ‸\n",
        " ",
        [],
    ),
    (
        "space trigger after dash",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - ‸\n",
        " ",
        [
            "interacts | field | 'interacts: ' | 2:4-2:4 | list[interaction] | 2000 | **interacts**: `list[interaction]` — in a step",
            "checks | field | 'checks: ' | 2:4-2:4 | list[check] | 2001 | **checks**: `list[check]` — in a step",
        ],
    ),
    (
        "unknown key value",
        "t.scenario.yaml",
        "name: x\nnope: ‸\n",
        None,
        [],
    ),
    (
        "unknown kind keys",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - checks:\n      - kind: nope\n        ‸\n",
        None,
        [],
    ),
    (
        "not a spec file",
        "notes.yaml",
        "a: ‸\n",
        None,
        [],
    ),
    (
        "interaction kinds",
        "t.scenario.yaml",
        "name: x\nsteps:\n  - interacts:\n      - kind: ‸\n",
        None,
        [
            "interact | check | 'interact' | 3:14-3:14 | One exchange (or several, when inputs is a generator): inputs and outputs. | 0000 | ```yaml",
            "with_spy | check | 'with_spy' | 3:14-3:14 | Patches `target` with a MagicMock while the wrapped spec runs and records its calls. | 0001 | ```yaml",
        ],
    ),
]


@pytest.mark.parametrize(
    ("name", "path", "marked", "trigger", "expected"), CASES, ids=[c[0] for c in CASES]
)
def test_completion_items(
    name: str, path: str, marked: str, trigger: str | None, expected: list[str]
) -> None:
    index = marked.index("‸")
    text = marked[:index] + marked[index + 1 :]
    position = Position(marked.count("\n", 0, index), index - (marked.rfind("\n", 0, index) + 1))
    found = complete(analyze(text, path, WORKSPACE), text, position, WORKSPACE, trigger=trigger)
    assert [shown(c) for c in found] == expected
