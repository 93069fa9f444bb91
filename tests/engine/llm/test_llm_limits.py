"""Prompt size limits, embedding settings that follow the judge's, and secret masking,
driven through litellm against the local OpenAI stub."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from checkspec.engine import Interaction, Trace
from checkspec.engine.judges import (
    Generator,
    LLMJudge,
    SemanticSimilarity,
    render_prompt,
    set_default_generator,
)
from checkspec.engine.llm.client import mask_secret, set_llm_client
from checkspec.engine.llm.prompt_limits import set_max_prompt_size
from checkspec.engine.llm.prompts import PromptError
from checkspec.engine.settings import editor_overrides, resolve_settings, use_settings
from checkspec.engine.spec.workspace import workspace_from_text
from tests.support.model_env import no_model_configured
from tests.support.openai_stub import OpenAIStub, running_stub

API_KEY = "sk-test-secret-1234"
PASS = OpenAIStub.verdict(True, "fine")
TRACE = Trace(interactions=[Interaction(inputs="Capital?", outputs="Paris.")])


@pytest.fixture(autouse=True)
def clean_config(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with no_model_configured(monkeypatch, "CHECKSPEC_MAX_PROMPT_SIZE"):
        set_max_prompt_size(None)
        yield
        set_max_prompt_size(None)


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with running_stub() as server:
        yield server


@pytest.fixture
def judge(stub: OpenAIStub) -> OpenAIStub:
    set_default_generator(
        Generator(model="openai/test-model", api_base=stub.base_url, api_key=API_KEY)
    )
    return stub


# -- prompt size --------------------------------------------------------------------------

MULTIPLIERS = [
    "{{ 'x'|center(50000000) }}",
    "{{ '%50000000s'|format('x') }}",
    "{{ lipsum(n=20000) }}",
    "{{ 'x'.center(50000000) }}",
    "{{ '{:>50000000}'.format('x') }}",
    "{{ '%50000000s' % 'x' }}",
    "{{ 'x' * 100000000 }}",
    "{{ ('x' * 1000)|replace('x', 'y' * 1000) }}",
    "{{ 'ab'|wordwrap(1, wrapstring='z' * 200000) }}",
    "{{ ('x\\n' * 1000)|indent(1000) }}",
    "{{ ['x' * 150000, 'y' * 150000]|join }}",
    "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
    "{% endfor %}",
    "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}"
    "{% endfor %}",
    "{% for i in range(100000) %}xyz{% endfor %}",
]


@pytest.mark.parametrize("template", MULTIPLIERS)
async def test_a_prompt_over_the_limit_is_an_error_naming_it_and_is_never_sent(
    judge: OpenAIStub, template: str
) -> None:
    result = await LLMJudge(prompt=template).run(TRACE)
    assert result.errored
    assert "over the 200 KB limit (max_prompt_size in checkspec.yaml" in (result.message or "")
    assert judge.chat_requests == []


def test_nothing_over_the_limit_is_ever_built_whole() -> None:
    # 5 GB if built: the check happens before the filter runs.
    with pytest.raises(PromptError, match="about 5,000,000,000 characters"):
        render_prompt("{{ 'x'|center(5000000000) }}", {})


async def test_the_limit_follows_the_settings(
    judge: OpenAIStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = "{{ 'x' * 3000 }}"
    judge.script(PASS)
    assert (await LLMJudge(prompt=template).run(TRACE)).passed
    monkeypatch.setenv("CHECKSPEC_MAX_PROMPT_SIZE", "2000")
    result = await LLMJudge(prompt=template).run(TRACE)
    assert "over the 2 KB limit" in (result.message or "")
    config = workspace_from_text("max_prompt_size: 5000\n", Path("/w/checkspec.yaml"))
    monkeypatch.delenv("CHECKSPEC_MAX_PROMPT_SIZE")
    with use_settings(resolve_settings(config)):
        assert (await LLMJudge(prompt=template).run(TRACE)).passed  # the same prompt: cached
    with use_settings(resolve_settings(config, max_prompt_size=100)):
        assert "over the 100 bytes limit" in (
            (await LLMJudge(prompt=template).run(TRACE)).message or ""
        )
    assert len(judge.chat_requests) == 1


def test_ordinary_templates_still_render() -> None:
    template = (
        "{{ '%s/%d' % ('a', 1) }} {{ 'a' ~ 1 }} {{ [1, 2]|join(',') }} {{ 'ab'|replace('a', 'c') }}"
        " {{ 'hi'|center(6) }}|{{ 'a b'|wordwrap(1) }}|{{ 'x'|indent(2, true) }}"
        "|{{ '{:>3}'.format('x') }}|{{ 'x'.rjust(3) }}|{{ lipsum(1, false, 3, 5)|length > 0 }}"
    )
    assert render_prompt(template, {}) == "a/1 a1 1,2 cb   hi  |a\nb|  x|  x|  x|True"


# -- embeddings follow the judge's endpoint --------------------------------------------------


async def test_the_four_readme_variables_configure_embeddings_too(
    stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.embeddings = lambda text: [1.0, 0.0]
    monkeypatch.setenv("CHECKSPEC_MODEL", "openai/test-model")
    monkeypatch.setenv("CHECKSPEC_API_BASE", stub.base_url)
    monkeypatch.setenv("CHECKSPEC_API_KEY", API_KEY)
    monkeypatch.setenv("CHECKSPEC_EMBEDDING_MODEL", "openai/test-embedding")
    result = await SemanticSimilarity(reference_text="Paris.").run(TRACE)
    assert result.passed, result.message
    assert stub.embedding_headers[0]["authorization"] == f"Bearer {API_KEY}"


async def test_embedding_variables_win_over_the_judge_endpoint(
    stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.embeddings = lambda text: [1.0, 0.0]
    monkeypatch.setenv("CHECKSPEC_API_BASE", "http://127.0.0.1:9/v1")  # nothing listens
    monkeypatch.setenv("CHECKSPEC_API_KEY", "judge-key")
    monkeypatch.setenv("CHECKSPEC_EMBEDDING_MODEL", "openai/test-embedding")
    monkeypatch.setenv("CHECKSPEC_EMBEDDING_API_BASE", stub.base_url)
    monkeypatch.setenv("CHECKSPEC_EMBEDDING_API_KEY", "embedding-key")
    result = await SemanticSimilarity(reference_text="Paris.").run(TRACE)
    assert result.passed, result.message
    assert stub.embedding_headers[0]["authorization"] == "Bearer embedding-key"


async def test_embeddings_use_the_judge_api_base_from_checkspec_yaml(
    stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.embeddings = lambda text: [1.0, 0.0]
    monkeypatch.setenv("CHECKSPEC_API_KEY", API_KEY)
    config = workspace_from_text(
        f"model: openai/test-model\nembedding_model: openai/test-embedding\n"
        f"api_base: {stub.base_url}\n",
        Path("/w/checkspec.yaml"),
    )
    with use_settings(resolve_settings(config)):
        result = await SemanticSimilarity(reference_text="Paris.").run(TRACE)
    assert result.passed, result.message
    assert stub.embedding_headers[0]["authorization"] == f"Bearer {API_KEY}"


async def test_an_editor_embedding_api_base_wins(
    stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.embeddings = lambda text: [1.0, 0.0]
    monkeypatch.setenv("CHECKSPEC_API_KEY", API_KEY)
    settings = resolve_settings(
        None,
        embedding_model="openai/test-embedding",
        api_base="http://127.0.0.1:9/v1",
        embedding_api_base=stub.base_url,
    )
    with use_settings(settings):
        result = await SemanticSimilarity(reference_text="Paris.").run(TRACE)
    assert result.passed, result.message


# -- masking ------------------------------------------------------------------------------


def test_masking_replaces_only_whole_secrets() -> None:
    assert mask_secret("OpenAIException: bad key E", "E") == "OpenAIException: bad key ****"
    assert mask_secret(f"Incorrect API key: {API_KEY}.", API_KEY) == "Incorrect API key: ****1234."
    assert mask_secret(f"key={API_KEY}&x", API_KEY) == "key=****1234&x"
    assert mask_secret("no secret here", None) == "no secret here"


@pytest.mark.parametrize(("client", "word"), [("litellm", "OpenAIException"), ("auto", "Error")])
async def test_a_provider_error_with_a_short_key_stays_readable(
    stub: OpenAIStub, client: str, word: str
) -> None:
    """Through litellm and through the openai SDK (the direct path of `openai/` models):
    the masked key "E" garbles no word of the provider's message."""
    set_default_generator(
        Generator(model="openai/test-model", api_base=stub.base_url, api_key="E", max_retries=0)
    )
    set_llm_client(client)
    try:
        result = await LLMJudge(prompt="hi").run(TRACE)  # the stub answers HTTP 500
    finally:
        set_llm_client("auto")
    assert result.errored
    assert word in (result.message or "") and "500" in (result.message or "")


def test_editors_and_checkspec_yaml_set_the_new_settings() -> None:
    raw = {"embeddingApiBase": " http://e/v1 ", "maxPromptSize": 5000}
    assert editor_overrides(raw) == {"embedding_api_base": "http://e/v1", "max_prompt_size": 5000}
    config = workspace_from_text(
        "embedding_api_base: http://e/v1\nmax_prompt_size: 10\n", Path("/w/checkspec.yaml")
    )
    assert config.problems == []
    settings = resolve_settings(config)
    assert (settings.embedding_api_base, settings.max_prompt_size) == ("http://e/v1", 10)
