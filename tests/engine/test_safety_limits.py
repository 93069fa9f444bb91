"""Every safety limit, exceeded: what hostile or runaway input gets instead of the work.

Each limit is also met exactly where that is cheap, so an off-by-one in either direction
shows. The limits: file size, nesting depth (block, flow, JSON, through an alias, and
libyaml's own), alias expansion, endless aliases, the analysis cache's size, the judge
template sandbox's size guards, the LLM call's hard timeout, and the lengths at which
messages are cut. (The regex time limit is in test_engine_checks.py, the target timeout
in test_cli.py.)
"""

from __future__ import annotations

import asyncio
import re

import pytest

from checkspec.engine.llm import answers as verdict
from checkspec.engine.llm import client as llm
from checkspec.engine.llm.endpoints import Generator
from checkspec.engine.llm.prompts import PromptError, render_prompt
from checkspec.engine.spec import scenario_analysis
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.problems import Position, Range
from checkspec.engine.spec.source import parse_source


def codes_and_messages(text: str, **limits: int) -> list[tuple[str, str]]:
    return [(p.code, p.message) for p in parse_source(text, **limits).problems]


def test_file_size_limit() -> None:
    assert parse_source("a: 1234\n", max_bytes=8).problems == []
    (problem,) = parse_source("a: 12345\n", max_bytes=8).problems
    assert (problem.code, problem.message) == (
        "too-large",
        "file is 9 bytes, over the 8 bytes limit (setting max_file_size in checkspec.yaml, or the editor's checkspec.maxFileSize)",
    )
    assert problem.range == Range(Position(0, 0), Position(0, 0))
    # counted in UTF-8 bytes, not characters
    assert parse_source("a: é\n", max_bytes=5).problems[0].code == "too-large"
    assert parse_source("a: é\n", max_bytes=6).problems == []


def nested(depth: int) -> str:
    """`depth` levels of block mappings."""
    return "".join("  " * i + f"k{i}:\n" for i in range(depth - 1)) + "  " * (depth - 1) + "k: 1\n"


def test_block_nesting_limit() -> None:
    assert parse_source(nested(5), max_depth=5).root is not None
    source = parse_source(nested(6), max_depth=5)
    assert source.root is None
    assert [(p.code, p.message) for p in source.problems] == [
        ("too-deep", "nesting is deeper than 5 levels")
    ]
    assert source.problems[0].range.start == Position(5, 10)


def test_flow_and_json_nesting_limits() -> None:
    assert parse_source("[[[1]]]", max_depth=3).root is not None
    assert codes_and_messages("[[[[1]]]]", max_depth=3) == [
        ("too-deep", "nesting is deeper than 3 levels")
    ]
    assert parse_source('{"a": {"b": 1}}', json=True, max_depth=2).root is not None
    assert codes_and_messages('{"a": {"b": {"c": 1}}}', json=True, max_depth=2) == [
        ("too-deep", "nesting is deeper than 2 levels")
    ]


def test_libyaml_depth_is_the_last_word_whatever_the_setting() -> None:
    source = parse_source("[" * 1001 + "]" * 1001, max_depth=5000)
    assert source.root is None
    assert [p.code for p in source.problems] == ["too-deep"]


def test_an_alias_cannot_nest_deeper_than_the_limit() -> None:
    text = "base: &b {a: {b: {c: 1}}}\nuse:\n  deeper:\n    here: *b\n"
    assert parse_source(text, max_depth=6).root is not None
    source = parse_source(text, max_depth=5)
    assert source.root is None
    assert [(p.code, p.message) for p in source.problems] == [
        ("too-deep", "alias *b nests deeper than 5 levels")
    ]
    assert source.problems[0].range.start == Position(3, 10)


def test_alias_expansion_limit() -> None:
    text = "a: &a [1, 2, 3]\nb: [*a, *a]\n"
    # 7 nodes written (2 keys, 2 lists, 3 items) and 2 aliases of 4 nodes each
    assert parse_source(text, max_nodes=16).root is not None
    assert codes_and_messages(text, max_nodes=15) == [
        ("alias-bomb", "YAML aliases expand to more than 15 nodes")
    ]


def test_an_endless_alias_is_refused() -> None:
    assert codes_and_messages("a: &a [1, *a]\n") == [
        ("alias-bomb", "alias *a refers to a node that contains it (endless)")
    ]


def test_the_analysis_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scenario_analysis, "_CACHE", {})
    monkeypatch.setattr(scenario_analysis, "_CACHE_LIMIT", 3)
    texts = [f"name: s{i}\nsteps: []\n" for i in range(5)]
    for text in texts:
        assert analyze(text, "t.scenario.yaml").scenarios[0].name == text.split()[1]
        assert len(scenario_analysis._CACHE) <= 3  # noqa: SLF001 (a private helper's own test)
    again = analyze(texts[-1], "t.scenario.yaml")
    assert again.scenarios[0].name == "s4"


OVER_1KB = (
    "The prompt would be over the 1 KB limit (max_prompt_size in checkspec.yaml, or "
    "CHECKSPEC_MAX_PROMPT_SIZE): the template builds a text of about 1,001 characters"
)


@pytest.mark.parametrize(
    ("template", "error"),
    [
        ("{{ 'x' * 1000 }}", None),
        ("{{ 'x' * 1001 }}", OVER_1KB),
        ("{{ 1001 * 'x' }}", OVER_1KB),
        ("{{ [1] * 1001 }}", OVER_1KB),
        ("{{ 'x' ~ 'y' * 1000 }}", OVER_1KB),
        ("{{ 2 ** 10000 }}", None),
        ("{{ 2 ** 10001 }}", "The prompt template was blocked by the sandbox: "),
        ("{{ 2 ** -10001 }}", "The prompt template was blocked by the sandbox: "),
    ],
)
def test_template_size_guards(template: str, error: str | None) -> None:
    limit = 1000 if "'x'" in template or "[1]" in template else None  # powers: the default
    if error is None:
        assert render_prompt(template, {}, max_size=limit)
        return
    with pytest.raises(PromptError) as info:
        render_prompt(template, {}, max_size=limit)
    assert str(info.value).startswith(error)
    if "sandbox" in error:
        assert "too large" in str(info.value)


def test_the_default_prompt_limit_is_200_kb() -> None:
    assert len(render_prompt("{{ 'x' * 200000 }}", {})) == 200_000
    with pytest.raises(PromptError, match="over the 200 KB limit"):
        render_prompt("{{ 'x' * 1000001 }}", {})


async def test_a_stuck_model_call_is_cut_at_its_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llm, "_TIMEOUT_GRACE", 0.0)
    endpoint = Generator(model="openai/test", timeout=0.05, max_retries=0)
    never = asyncio.Event()

    async def stuck() -> None:
        await never.wait()

    with pytest.raises(llm.ProviderError) as info:
        await llm._with_retries(endpoint, stuck)  # noqa: SLF001 (a private helper's own test)
    # The address it waited on is named (here the openai SDK's default one).
    assert re.fullmatch(
        r"The call to openai/test failed \(not retried\): no answer from \S+ within 0\.05s",
        str(info.value),
    ), str(info.value)


def test_provider_messages_are_cut_and_keep_no_secret() -> None:
    endpoint = Generator(model="openai/test", api_key="sk-secret")
    long = RuntimeError("sk-secret " + "x" * 600)
    described = llm._describe(long, endpoint, 3)  # noqa: SLF001 (a private helper's own test)
    assert described.startswith("The call to openai/test failed after 3 attempts: **** xxx")
    assert described.endswith("x...") and "sk-secret" not in described
    assert len(described) == len("The call to openai/test failed after 3 attempts: ") + 503
    exact = llm._describe(RuntimeError("y" * 500), endpoint, 1)  # noqa: SLF001 (a private helper's own test)
    assert exact.endswith("y" * 500)


def test_a_raw_judge_answer_is_cut_when_quoted() -> None:
    assert verdict._clip(None) == "none"  # noqa: SLF001 (a private helper's own test)
    assert verdict._clip("  short  ") == "'short'"  # noqa: SLF001 (a private helper's own test)
    assert verdict._clip("z" * 300) == repr("z" * 300)  # noqa: SLF001 (a private helper's own test)
    assert verdict._clip("z" * 301) == repr("z" * 300 + "...")  # noqa: SLF001 (a private helper's own test)


def test_the_default_size_limit_is_ten_megabytes() -> None:
    from checkspec.engine.spec.source import parse_jsonl_lines

    at_limit = "#" * 10_000_000  # a comment: nothing to build
    assert parse_source(at_limit).problems == []
    assert [p.code for p in parse_source(at_limit + "#").problems] == ["too-large"]
    assert [p.code for p in parse_jsonl_lines("1" * 10_000_000)[1]] == ["syntax"]  # read
    rows, found = parse_jsonl_lines("1" * 10_000_001)
    assert rows == [] and [p.code for p in found] == ["too-large"]


def test_a_number_too_long_to_convert_is_a_problem_not_a_crash() -> None:
    digits = "1" * 5000  # Python refuses to convert integers over 4,300 digits
    (problem,) = parse_source('{"a": ' + digits + "}", json=True).problems
    assert problem.code == "syntax" and "4300 digits" in problem.message
    assert problem.range.start == Position(0, 0)
    (line,) = parse_source("a: " + digits + "\n").problems
    assert line.code == "syntax" and line.message.startswith("cannot read '1111")
    document = analyze('{"interactions": [{"input": ' + digits + "}]}\n", "f.dataset.jsonl")
    assert [p.code for p in document.problems] == ["syntax"]
