"""LLM judges and semantic similarity, driven through litellm against a local OpenAI stub."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from checkspec.engine import Check, Interaction, Trace
from checkspec.engine.judges import (
    Conformity,
    EmbeddingModel,
    Generator,
    LLMJudge,
    SemanticSimilarity,
    get_default_generator,
    render_prompt,
    set_default_embedding_model,
    set_default_generator,
    template_syntax_error,
)
from checkspec.engine.judges.verdict import VerdictError, read_verdict
from tests.support.model_env import no_model_configured
from tests.support.openai_stub import OpenAIStub, running_stub

API_KEY = "sk-test-secret-1234"
PASS = OpenAIStub.verdict(True, "The answer is polite.")


@pytest.fixture(autouse=True)
def clean_config(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with no_model_configured(monkeypatch):
        yield


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with running_stub() as server:
        yield server


def stub_generator(stub: OpenAIStub, **settings: Any) -> Generator:
    # Tiny backoff so retry tests stay fast; the count of requests is what is asserted.
    options: dict[str, Any] = {"max_retries": 1, "retry_backoff": 0.001, **settings}
    return Generator(model="openai/test-model", api_base=stub.base_url, api_key=API_KEY, **options)


@pytest.fixture
def judge(stub: OpenAIStub) -> OpenAIStub:
    """The stub, set as the default judge model."""
    set_default_generator(stub_generator(stub))
    return stub


def trace(*turns: tuple[Any, Any], metadata: dict[str, Any] | None = None) -> Trace:
    interactions = [Interaction(inputs=i, outputs=o) for i, o in turns]
    if metadata is not None:
        last = interactions[-1]
        interactions[-1] = Interaction(inputs=last.inputs, outputs=last.outputs, metadata=metadata)
    return Trace(interactions=interactions)


REFUND = trace(("What is your refund policy?", "We offer a 30-day refund on unused items."))


def hub_trace(content: str) -> Trace:
    return trace(
        (
            {"messages": [{"role": "user", "content": "Can I return shoes?"}]},
            {"response": {"role": "assistant", "content": content}, "metadata": {}},
        )
    )


# -- verdicts ------------------------------------------------------------------------------


async def test_passing_verdict(judge: OpenAIStub) -> None:
    judge.script(PASS)
    result = await Conformity(rule="The answer must be polite.").run(REFUND)
    assert result.passed, result.message
    assert result.message == "The answer is polite."
    assert result.details["model"] == "openai/test-model"
    [body] = judge.chat_requests
    assert body["model"] == "test-model"
    assert body["temperature"] == 0
    assert body["response_format"] == {"type": "json_object"}
    assert result.details["prompt"] == body["messages"][-1]["content"]


async def test_failing_verdict_carries_the_reason(judge: OpenAIStub) -> None:
    judge.script(OpenAIStub.verdict(False, "It promises a refund on used items."))
    result = await Conformity(rule="Never promise refunds on used items.").run(REFUND)
    assert result.failed
    assert result.message == "It promises a refund on used items."
    assert result.details["reason"] == "It promises a refund on used items."


@pytest.mark.parametrize(
    "answer",
    [
        '```json\n{"passed": true, "reason": "ok"}\n```',
        'Here is my verdict: {"passed": true, "reason": "ok"} Hope it helps.',
        '{"passed": "true", "reason": "ok"}',
    ],
    ids=["fenced", "in-prose", "string-bool"],
)
async def test_verdict_packaging_is_tolerated(judge: OpenAIStub, answer: str) -> None:
    judge.script(answer)
    result = await Conformity(rule="Be polite.").run(REFUND)
    assert result.passed, result.message
    assert result.message == "ok"


@pytest.mark.parametrize(
    "answer",
    [
        "Yes, it passes.",
        "",
        '{"reason": "no passed field"}',
        '{"passed": "maybe"}',
        '{"passed": 1}',
        '["passed", true]',
        'Example: {"passed": true}. Actual: {"passed": false}',
    ],
    ids=["prose", "empty", "no-passed", "maybe", "int", "array", "conflicting"],
)
async def test_garbage_answer_is_an_error_never_a_pass(judge: OpenAIStub, answer: str) -> None:
    judge.script(answer)
    result = await Conformity(rule="Be polite.").run(REFUND)
    assert result.errored
    assert "not a verdict" in (result.message or "")


def test_verdict_error_truncates_the_raw_answer() -> None:
    with pytest.raises(VerdictError) as info:
        read_verdict("no json " * 200)
    assert len(str(info.value)) < 500


# -- provider errors and retries --------------------------------------------------------


async def test_server_error_is_retried_then_errors(stub: OpenAIStub) -> None:
    set_default_generator(stub_generator(stub, max_retries=2))
    stub.chat = lambda body: 500
    result = await Conformity(rule="Be polite.").run(REFUND)
    assert result.errored
    assert len(stub.chat_requests) == 3  # 1 + max_retries
    assert "after 3 attempts" in (result.message or "")
    assert "openai/test-model" in (result.message or "")


async def test_rate_limit_is_retried(judge: OpenAIStub) -> None:
    judge.script(429, PASS)
    result = await Conformity(rule="Be polite.").run(REFUND)
    assert result.passed, result.message
    assert len(judge.chat_requests) == 2


async def test_client_error_is_not_retried(stub: OpenAIStub) -> None:
    set_default_generator(stub_generator(stub, max_retries=3))
    stub.chat = lambda body: 401
    result = await Conformity(rule="Be polite.").run(REFUND)
    assert result.errored
    assert len(stub.chat_requests) == 1
    assert API_KEY not in (result.message or "")


async def test_concurrency_is_bounded(stub: OpenAIStub) -> None:
    set_default_generator(stub_generator(stub, max_concurrency=2))
    lock = threading.Lock()
    in_flight = [0, 0]  # current, highest

    def slow(body: dict[str, Any]) -> str:
        with lock:
            in_flight[0] += 1
            in_flight[1] = max(in_flight[1], in_flight[0])
        time.sleep(0.05)
        with lock:
            in_flight[0] -= 1
        return PASS

    stub.chat = slow
    checks = [Conformity(rule=f"Rule number {n}.") for n in range(6)]
    results = await asyncio.gather(*(c.run(REFUND) for c in checks))
    assert all(r.passed for r in results)
    assert len(stub.chat_requests) == 6
    assert in_flight[1] <= 2


# -- configuration -----------------------------------------------------------------------


async def test_no_model_is_an_error_saying_how_to_configure(stub: OpenAIStub) -> None:
    result = await Conformity(rule="Be polite.").run(REFUND)
    assert result.errored
    assert "CHECKSPEC_MODEL" in (result.message or "")
    assert stub.chat_requests == []


async def test_environment_configures_the_default_model(
    stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHECKSPEC_MODEL", "openai/env-model")
    monkeypatch.setenv("CHECKSPEC_API_BASE", stub.base_url)
    monkeypatch.setenv("CHECKSPEC_API_KEY", API_KEY)
    assert get_default_generator().model == "openai/env-model"
    stub.script(PASS)
    result = await Conformity(rule="Be polite.").run(REFUND)
    assert result.passed, result.message
    assert stub.chat_requests[0]["model"] == "env-model"


async def test_explicit_default_takes_its_key_from_the_environment(
    stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As when the model comes from checkspec.yaml and the secret from the environment.
    monkeypatch.setenv("CHECKSPEC_API_KEY", API_KEY)
    set_default_generator(Generator(model="openai/test-model", api_base=stub.base_url))
    stub.script(PASS)
    result = await Conformity(rule="Be polite.").run(REFUND)
    assert result.passed, result.message
    assert stub.chat_headers[0]["authorization"] == f"Bearer {API_KEY}"


async def test_check_generator_overrides_only_what_it_sets(judge: OpenAIStub) -> None:
    judge.script(PASS)
    check = Check.model_validate(
        {"kind": "conformity", "rule": "Be polite.", "generator": {"temperature": 0.5}}
    )
    reloaded = Check.model_validate(check.model_dump())
    # As in the reference library, a generator is the judge's: dumped under `judge`.
    assert check.model_dump()["judge"] == {"kind": "llm", "generator": {"temperature": 0.5}}
    assert "generator" not in check.model_dump()
    for each in (check, reloaded):
        result = await each.run(REFUND)
        assert result.passed, result.message
    assert judge.chat_requests[0]["model"] == "test-model"
    assert judge.chat_requests[0]["temperature"] == 0.5


def test_round_trip_and_no_key_in_dumps() -> None:
    check = Check.model_validate({"kind": "conformity", "rule": "x"})
    assert Check.model_validate(check.model_dump()) == check
    assert check.model_dump()["rule"] == "x"

    with_key = Check.model_validate(
        {
            "kind": "hub_conformity",
            "rules": ["a"],
            "generator": {"model": "openai/m", "api_key": API_KEY},
        }
    )
    assert with_key.generator is not None
    assert with_key.generator.api_key is not None
    assert with_key.generator.api_key.get_secret_value() == API_KEY
    for text in (str(with_key.model_dump()), with_key.model_dump_json(), repr(with_key)):
        assert API_KEY not in text
    assert "api_key" not in with_key.model_dump()["judge"]["generator"]
    again = Check.model_validate(with_key.model_dump())
    assert again.model_dump() == with_key.model_dump()


def test_generator_accepts_a_model_name() -> None:
    check = Check.model_validate({"kind": "conformity", "rule": "x", "generator": "openai/m"})
    assert check.generator == Generator(model="openai/m")


def test_importing_the_engine_does_not_import_litellm() -> None:
    code = (
        "import sys, checkspec.engine as e; "
        "assert 'llm_judge' in e.Check.registry(); "
        "assert 'litellm' not in sys.modules, 'litellm imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- prompts -------------------------------------------------------------------------------


async def test_prompt_contains_trace_values_and_the_literal_rule(judge: OpenAIStub) -> None:
    judge.script(PASS)
    rule = "Quote the policy as {{ trace.last.outputs }} and {% raw %}."
    result = await Conformity(rule=rule).run(REFUND)
    assert result.passed, result.message
    [prompt] = judge.prompts
    assert "What is your refund policy?" in prompt
    assert "We offer a 30-day refund on unused items." in prompt
    assert rule in prompt  # shown as written, never evaluated as a template
    assert '"passed"' in prompt  # the answer format is appended


async def test_hub_correctness_prompt_has_reference_and_response(judge: OpenAIStub) -> None:
    judge.script(OpenAIStub.verdict(False, "The 30-day window is missing."))
    check = Check.model_validate(
        {"kind": "hub_correctness", "reference": "We offer a 30-day return policy."}
    )
    result = await check.run(hub_trace("You can return shoes."))
    assert result.failed
    assert result.message == "The 30-day window is missing."
    [prompt] = judge.prompts
    assert "We offer a 30-day return policy." in prompt
    assert "You can return shoes." in prompt
    assert "Can I return shoes?" in prompt


async def test_llm_judge_renders_the_trace(judge: OpenAIStub) -> None:
    judge.script(PASS)
    check = LLMJudge(prompt="User: {{ trace.last.inputs }}\nAgent: {{ trace.last.outputs }}")
    result = await check.run(REFUND)
    assert result.passed, result.message
    assert judge.prompts[0].startswith(
        "User: What is your refund policy?\nAgent: We offer a 30-day refund on unused items."
    )


@pytest.mark.parametrize(
    "template",
    [
        "{{ trace.__class__.__mro__ }}",
        "{{ ''.__class__.__subclasses__() }}",
        "{{ trace.last.__init__.__globals__ }}",
    ],
)
async def test_sandbox_escape_is_an_error_and_sends_nothing(
    judge: OpenAIStub, template: str
) -> None:
    result = await LLMJudge(prompt=template).run(REFUND)
    assert result.errored
    assert "sandbox" in (result.message or "") or "unsafe" in (result.message or "")
    assert judge.chat_requests == []


async def test_undefined_value_is_an_error(judge: OpenAIStub) -> None:
    result = await LLMJudge(prompt="Answer: {{ trace.last.answer }}").run(REFUND)
    assert result.errored
    assert "undefined" in (result.message or "")
    assert judge.chat_requests == []


async def test_template_syntax_error_is_an_error_with_its_line(judge: OpenAIStub) -> None:
    result = await LLMJudge(prompt="line one\n{% if trace %}never closed").run(REFUND)
    assert result.errored
    assert "syntax error" in (result.message or "")
    assert template_syntax_error("ok\n{{ broken ") is not None
    assert "line 2" in (template_syntax_error("ok\n{{ broken }") or "")
    assert template_syntax_error("{{ trace.last.outputs }}") is None
    assert judge.chat_requests == []


def test_render_prompt_shows_structured_values_as_json() -> None:
    text = render_prompt("{{ value | text }}", {"value": {"a": [1, "é"]}})
    assert json.loads(text) == {"a": [1, "é"]}


async def test_prompt_path_is_read_at_run_time(
    judge: OpenAIStub, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    check = LLMJudge(prompt_path="prompts/judge.j2")
    missing = await check.run(REFUND)
    assert missing.errored
    assert "prompts/judge.j2" in (missing.message or "")
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "judge.j2").write_text("Answer was: {{ trace.last.outputs }}")
    judge.script(PASS)
    result = await check.run(REFUND)
    assert result.passed, result.message
    assert judge.prompts[0].startswith("Answer was: We offer a 30-day refund")


# -- cache ---------------------------------------------------------------------------------


async def test_identical_calls_in_a_run_hit_the_cache(judge: OpenAIStub) -> None:
    judge.chat = lambda body: PASS
    check = Conformity(rule="Be polite.")
    first = await check.run(REFUND)
    second = await Conformity(rule="Be polite.").run(REFUND)
    together = await asyncio.gather(check.run(REFUND), check.run(REFUND))
    assert all(r.passed for r in (first, second, *together))
    assert len(judge.chat_requests) == 1


async def test_unusable_answers_are_not_cached(judge: OpenAIStub) -> None:
    judge.script("not a verdict", PASS)
    check = Conformity(rule="Be polite.")
    assert (await check.run(REFUND)).errored
    assert (await check.run(REFUND)).passed
    assert len(judge.chat_requests) == 2


# -- the other judges ----------------------------------------------------------------------


async def test_hub_conformity_judges_each_rule(judge: OpenAIStub) -> None:
    def by_rule(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        if "personal opinions" in prompt:
            return OpenAIStub.verdict(False, "It says 'I love these shoes'.")
        return PASS

    judge.chat = by_rule
    rules = ["Use a formal tone.", "Do not include personal opinions."]
    check = Check.model_validate({"kind": "hub_conformity", "rules": rules})
    result = await check.run(hub_trace("I love these shoes, return them within 30 days."))
    assert result.failed
    assert len(judge.chat_requests) == 2
    assert "Do not include personal opinions." in (result.message or "")
    assert "I love these shoes" in (result.message or "")
    assert "Use a formal tone." not in (result.message or "")
    assert [r["status"] for r in result.details["rules"]] == ["pass", "fail"]


async def test_hub_checks_accept_text_key(judge: OpenAIStub) -> None:
    judge.script(PASS)
    check = Check.model_validate(
        {
            "kind": "hub_groundedness",
            "context": "Returns: 30 days.",
            "text_key": "trace.last.outputs",
        }
    )
    assert check.model_dump()["target_key"] == "trace.last.outputs"
    result = await check.run(REFUND)
    assert result.passed, result.message
    assert "Returns: 30 days." in judge.prompts[0]


async def test_missing_key_is_an_error_naming_it(judge: OpenAIStub) -> None:
    check = Check.model_validate({"kind": "hub_correctness", "reference": "30 days"})
    result = await check.run(REFUND)  # outputs is a plain string: no .response.content
    assert result.errored
    assert "trace.last.outputs.response.content" in (result.message or "")
    assert judge.chat_requests == []


async def test_groundedness_reads_context_from_the_trace(judge: OpenAIStub) -> None:
    judge.script(PASS)
    docs = ["Refunds within 30 days.", "Only unused items."]
    result = await Check.model_validate({"kind": "groundedness"}).run(
        trace(("Refunds?", "30 days, unused items."), metadata={"context": docs})
    )
    assert result.passed, result.message
    assert all(doc in judge.prompts[0] for doc in docs)
    assert "30 days, unused items." in judge.prompts[0]

    missing = await Check.model_validate({"kind": "groundedness"}).run(REFUND)
    assert missing.errored
    assert missing.message == "No value found for context key 'trace.last.metadata.context'."


async def test_answer_relevance_includes_history_when_asked(judge: OpenAIStub) -> None:
    judge.chat = lambda body: PASS
    conversation = trace(("What is the best language?", "Python"), ("What's Python?", "A snake."))
    await Check.model_validate({"kind": "answer_relevance"}).run(conversation)
    await Check.model_validate({"kind": "answer_relevance", "include_history": False}).run(
        conversation
    )
    with_history, without_history = judge.prompts
    assert "What is the best language?" in with_history
    assert "What is the best language?" not in without_history
    assert "What's Python?" in without_history and "A snake." in without_history


async def test_toxicity_names_the_categories(judge: OpenAIStub) -> None:
    judge.script(OpenAIStub.verdict(False, "threats: 'or else'"))
    check = Check.model_validate({"kind": "toxicity", "categories": ["hate_speech", "threats"]})
    result = await check.run(trace(("Hi", "Pay now or else.")))
    assert result.failed
    assert "hate speech" in judge.prompts[0] and "threats" in judge.prompts[0]
    assert "sexual content" not in judge.prompts[0]
    with pytest.raises(ValidationError):
        Check.model_validate({"kind": "toxicity", "categories": ["rudeness"]})


async def test_contradiction_with_context(judge: OpenAIStub) -> None:
    judge.script(PASS)
    check = Check.model_validate({"kind": "contradiction", "context": "Returns: 30 days."})
    result = await check.run(REFUND)
    assert result.passed, result.message
    assert "Returns: 30 days." in judge.prompts[0]


@pytest.mark.parametrize(
    "spec",
    [
        {"kind": "llm_judge"},
        {"kind": "llm_judge", "prompt": "a", "prompt_path": "b.j2"},
        {"kind": "contradiction", "context_key": "metadata.context"},
        {"kind": "contradiction", "context": 3},
        {"kind": "hub_conformity", "rules": []},
        {"kind": "hub_correctness"},
        {"kind": "conformity", "rule": "x", "generator": {"modle": "typo"}},
        {"kind": "semantic_similarity", "reference_text": "a", "threshold": 1.5},
        {"kind": "groundedness", "answer_key": "outputs"},
    ],
)
def test_invalid_specs_are_rejected(spec: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Check.model_validate(spec)


# -- semantic similarity ---------------------------------------------------------------------

VECTORS = {
    "The capital of France is Paris.": [1.0, 0.0, 0.0],
    "Paris is the capital of France.": [0.96, 0.28, 0.0],
    "I like turtles.": [0.0, 0.0, 1.0],
}


@pytest.fixture
def embeddings(stub: OpenAIStub) -> OpenAIStub:
    stub.embeddings = lambda text: VECTORS[text]
    set_default_embedding_model(
        EmbeddingModel(
            model="openai/test-embedding",
            api_base=stub.base_url,
            api_key=API_KEY,
            max_retries=0,
        )
    )
    return stub


async def test_semantic_similarity_passes_above_threshold(embeddings: OpenAIStub) -> None:
    check = SemanticSimilarity(reference_text="The capital of France is Paris.", threshold=0.9)
    result = await check.run(trace(("Capital?", "Paris is the capital of France.")))
    assert result.passed, result.message
    assert result.metrics[0].name == "similarity"
    assert result.metrics[0].value == pytest.approx(0.96)
    [body] = embeddings.embedding_requests
    assert body["model"] == "test-embedding"
    # The answer first, then the reference, as the reference library asks for them.
    assert body["input"] == ["Paris is the capital of France.", "The capital of France is Paris."]


async def test_semantic_similarity_fails_below_threshold(embeddings: OpenAIStub) -> None:
    check = Check.model_validate(
        {"kind": "semantic_similarity", "reference_text_key": "trace.last.metadata.reference_text"}
    )
    result = await check.run(
        trace(
            ("Capital?", "I like turtles."),
            metadata={"reference_text": "The capital of France is Paris."},
        )
    )
    assert result.failed
    assert result.metrics[0].value == pytest.approx(0.0)
    assert result.message == (
        "The cosine similarity with the reference answer is 0.00 which is less than the "
        "threshold 0.95"
    )


async def test_semantic_similarity_needs_an_embedding_model(stub: OpenAIStub) -> None:
    result = await SemanticSimilarity(reference_text="a").run(REFUND)
    assert result.errored
    assert "CHECKSPEC_EMBEDDING_MODEL" in (result.message or "")
    assert stub.embedding_requests == []


async def test_semantic_similarity_from_environment(
    stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub.embeddings = lambda text: [1.0, 1.0]
    monkeypatch.setenv("CHECKSPEC_EMBEDDING_MODEL", "openai/env-embedding")
    monkeypatch.setenv("CHECKSPEC_EMBEDDING_API_BASE", stub.base_url)
    monkeypatch.setenv("CHECKSPEC_EMBEDDING_API_KEY", API_KEY)
    result = await SemanticSimilarity(reference_text="a").run(REFUND)
    assert result.passed, result.message
    assert stub.embedding_requests[0]["model"] == "env-embedding"


async def test_semantic_similarity_provider_error(embeddings: OpenAIStub) -> None:
    embeddings.embeddings = None  # the stub answers HTTP 500
    result = await SemanticSimilarity(reference_text="a").run(REFUND)
    assert result.errored
    assert len(embeddings.embedding_requests) == 1  # max_retries=0
