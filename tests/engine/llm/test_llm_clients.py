"""The two ways a model call is sent (engine/llm/client.py): `openai/` models straight
through the openai SDK (llm_client `auto`), or everything through litellm (`litellm`).
The same behaviours, each run both ways against a real OpenAI-compatible HTTP server on
127.0.0.1: answers, JSON mode, structured output and its refusal, retries on server
errors and 429s, a refused connection, usage and cost, embeddings."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

from checkspec.engine.llm import client, usage
from checkspec.engine.llm.client import (
    ProviderError,
    complete_json,
    complete_structured,
    embed,
    set_llm_client,
)
from checkspec.engine.llm.endpoints import EmbeddingModel, Generator
from tests.support.openai_stub import OpenAIStub, running_stub
from tests.support.paths import REPO

ANSWER = json.dumps({"passed": True, "reason": "fine"})
SCHEMA = {
    "type": "object",
    "properties": {"passed": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["passed", "reason"],
}


@pytest.fixture(params=["auto", "litellm"])
def mode(request: pytest.FixtureRequest) -> Iterator[str]:
    set_llm_client(request.param)
    client.clear_cache()
    client._no_json_mode.clear()  # noqa: SLF001 (what earlier refusals taught the process)
    client._no_schema_mode.clear()  # noqa: SLF001
    yield request.param
    set_llm_client("auto")
    client._no_json_mode.clear()  # noqa: SLF001
    client._no_schema_mode.clear()  # noqa: SLF001


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with running_stub() as server:
        yield server


def judge(stub: OpenAIStub, **extra: object) -> Generator:
    return Generator(model="openai/test-model", api_base=stub.base_url, api_key="sk-k", **extra)  # type: ignore[arg-type]


async def test_an_answer_in_json_mode(stub: OpenAIStub, mode: str) -> None:
    stub.script(ANSWER)
    assert await complete_json(judge(stub), "Is it fine?") == {"passed": True, "reason": "fine"}
    (body,) = stub.chat_requests
    assert body["model"] == "test-model"  # the provider prefix is not sent
    assert body["response_format"] == {"type": "json_object"}
    assert body["messages"] == [{"role": "user", "content": "Is it fine?"}]
    assert stub.chat_headers[0]["authorization"] == "Bearer sk-k"


async def test_structured_output_and_its_refusal(stub: OpenAIStub, mode: str) -> None:
    stub.script(ANSWER)
    assert (await complete_structured(judge(stub), "Q1", SCHEMA))["passed"] is True
    assert stub.chat_requests[0]["response_format"]["type"] == "json_schema"
    stub.refuse_json_schema = True  # HTTP 400 naming response_format
    stub.script(ANSWER)
    assert (await complete_structured(judge(stub), "Q2", SCHEMA))["reason"] == "fine"
    refused, asked_again = stub.chat_requests[1:]
    assert refused["response_format"]["type"] == "json_schema"
    assert asked_again["response_format"] == {"type": "json_object"}
    assert '"required"' in asked_again["messages"][0]["content"]  # the schema in the prompt


async def test_server_errors_and_429s_are_retried(stub: OpenAIStub, mode: str) -> None:
    stub.retry_after = "0"
    stub.script(500, 429, ANSWER)
    generator = judge(stub, max_retries=2, retry_backoff=0.01)
    assert (await complete_json(generator, "Q"))["passed"] is True
    assert len(stub.chat_requests) == 3


async def test_a_client_error_is_not_retried(stub: OpenAIStub, mode: str) -> None:
    stub.script(401)
    with pytest.raises(ProviderError, match=r"failed \(not retried\).*401"):
        await complete_json(judge(stub, max_retries=3), "Q")
    assert len(stub.chat_requests) == 1


async def test_a_refused_connection_is_retried_then_reported(mode: str) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    generator = Generator(
        model="openai/test-model",
        api_base=f"http://127.0.0.1:{port}/v1",
        api_key="sk-k",
        max_retries=1,
        retry_backoff=0.01,
    )
    with pytest.raises(ProviderError, match="after 2 attempts"):
        await complete_json(generator, "Q")


async def test_usage_and_cost_are_counted(stub: OpenAIStub, mode: str) -> None:
    usage.set_prices({"openai/test-model": (0.001, 0.002)})
    try:
        stub.script(ANSWER)
        with usage.Meter() as meter:
            await complete_json(judge(stub), "one two three")
        spent = meter.usage
        assert (spent.requests, spent.prompt_tokens) == (1, 3)  # the stub counts words
        assert spent.completion_tokens == len(ANSWER.split())
        assert spent.cost_usd == pytest.approx(3 * 0.001 + len(ANSWER.split()) * 0.002)
    finally:
        usage.set_prices({})


async def test_embeddings(stub: OpenAIStub, mode: str) -> None:
    stub.embeddings = lambda text: [float(len(text)), 1.0]
    model = EmbeddingModel(model="openai/emb", api_base=stub.base_url, api_key="sk-k")
    assert await embed(model, ["ab", "abc"]) == [[2.0, 1.0], [3.0, 1.0]]
    assert stub.embedding_requests[0]["model"] == "emb"


def test_the_direct_path_never_imports_litellm() -> None:
    """litellm's import is seconds of a run's start-up: an `openai/` judge needs none of it,
    and its cost is priced from litellm's file read as JSON."""
    program = textwrap.dedent(
        f"""
        import asyncio, sys
        sys.path.insert(0, {str(REPO)!r})
        from tests.support.openai_stub import OpenAIStub
        from checkspec.engine.llm import usage
        from checkspec.engine.llm.client import complete_json
        from checkspec.engine.llm.endpoints import Generator
        stub = OpenAIStub(); stub.start(); stub.script({ANSWER!r})
        gen = Generator(model="openai/gpt-4o-mini", api_base=stub.base_url, api_key="k")
        async def main():
            with usage.Meter() as meter:
                await complete_json(gen, "hello there")
            return meter.usage
        spent = asyncio.run(main())
        assert spent.cost_usd > 0, spent
        assert "litellm" not in sys.modules
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip() == "ok", done.stderr


async def test_every_request_sent_is_counted_failed_ones_too(stub: OpenAIStub, mode: str) -> None:
    """A retried 500 and 429 and a refused structured-output option were requests the
    provider received: counted as sent and failed, with no tokens."""
    stub.retry_after = "0"
    stub.script(500, 429, ANSWER)
    with usage.Meter() as meter:
        await complete_json(judge(stub, max_retries=2, retry_backoff=0.01), "Q")
    assert (meter.usage.requests, meter.usage.failed) == (len(stub.chat_requests), 2) == (3, 2)
    assert meter.usage.prompt_tokens == 1  # the answered request's alone
    stub.refuse_json_schema = True
    stub.script(ANSWER)
    with usage.Meter() as meter:
        await complete_structured(judge(stub), "Q2", SCHEMA)
    assert (meter.usage.requests, meter.usage.failed) == (2, 1)
    stub.embeddings = None  # the stub answers 500
    model = EmbeddingModel(
        model="openai/emb", api_base=stub.base_url, api_key="sk-k", max_retries=1, retry_backoff=0
    )
    with usage.Meter() as meter, pytest.raises(ProviderError):
        await embed(model, ["a"])
    assert (meter.usage.requests, meter.usage.failed) == (len(stub.embedding_requests), 2)


async def test_a_connection_never_made_names_the_address_without_credentials(mode: str) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    # litellm's transport (aiohttp) refuses user:password in a URL before connecting.
    credentials = "someone:hunter2@" if mode == "auto" else ""
    generator = Generator(
        model="openai/test-model",
        api_base=f"http://{credentials}127.0.0.1:{port}/v1?api-key=sk-secret#frag",
        api_key="sk-k",
        max_retries=1,
        retry_backoff=0.01,
    )
    with usage.Meter() as meter, pytest.raises(ProviderError) as raised:
        await complete_json(generator, "Q")
    message = str(raised.value)
    assert f"cannot connect to http://127.0.0.1:{port}/v1" in message, message
    assert "hunter2" not in message and "someone" not in message and "sk-secret" not in message
    assert "frag" not in message
    assert meter.usage.requests == 0  # nothing reached a provider


def test_shown_urls_keep_no_credentials() -> None:
    shown = client.shown_url
    assert shown("https://u:p@api.example.com:8443/v1?key=s#x") == "https://api.example.com:8443/v1"
    assert shown("http://[::1]:9/v1") == "http://[::1]:9/v1"
    assert shown("http://host/v1") == "http://host/v1"
