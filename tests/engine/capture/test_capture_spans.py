"""Spans read into an interaction's metadata: the real OpenTelemetry SDK, spans made as
the GenAI and OpenInference instrumentations make them, collected by capture's processor.

Each test has a TracerProvider of its own (not the process's global one), so nothing
here instruments the test process.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import Status, StatusCode

from checkspec.engine.capture import capture_problem, otel, with_captured
from checkspec.engine.capture.otel import Collector, spans_of_call
from checkspec.engine.capture.spans import parse_json


@pytest.fixture
def tracer() -> Iterator[tuple[Collector, trace.Tracer]]:
    provider = TracerProvider()
    collector = Collector()
    provider.add_span_processor(collector)
    yield collector, provider.get_tracer("test")
    provider.shutdown()


def _span(tracer: trace.Tracer, name: str, attributes: dict[str, Any]) -> None:
    with tracer.start_as_current_span(name, attributes=attributes):
        pass


def _chat_attributes(model: str, prompt: int, completion: int = 1) -> dict[str, Any]:
    return {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": model,
        "gen_ai.usage.input_tokens": prompt,
        "gen_ai.usage.output_tokens": completion,
    }


def _chat(tracer: trace.Tracer, model: str, tokens: tuple[int, int], **more: Any) -> None:
    _span(tracer, f"chat {model}", {**_chat_attributes(model, *tokens), **more})


def test_execute_tool_spans_give_the_tools_in_order_with_arguments_and_results(tracer) -> None:
    collector, t = tracer
    with spans_of_call(collector, t) as found:
        _chat(t, "gpt-x", (10, 5))
        for name, args, result in (("search", {"q": "tea"}, ["a", "b"]), ("book", {"id": 3}, "ok")):
            _span(
                t,
                f"execute_tool {name}",
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": name,
                    "gen_ai.tool.call.arguments": json.dumps(args),
                    "gen_ai.tool.call.result": json.dumps(result),
                },
            )
        _chat(t, "gpt-x", (20, 7))
    assert found["tools_called"] == ["search", "book"]
    assert found["tool_calls"] == [
        {"name": "search", "arguments": {"q": "tea"}, "result": ["a", "b"], "error": None},
        {"name": "book", "arguments": {"id": 3}, "result": "ok", "error": None},
    ]
    assert found["token_count"] == 42
    assert (found["prompt_tokens"], found["completion_tokens"]) == (30, 12)
    assert [c["model"] for c in found["model_calls"]] == ["gpt-x", "gpt-x"]
    assert [c["token_count"] for c in found["model_calls"]] == [15, 27]
    assert found["span_count"] == 4
    assert found["latency_ms"] >= 0


def test_a_tool_that_raised_is_a_call_with_its_error(tracer) -> None:
    collector, t = tracer
    with spans_of_call(collector, t) as found:
        with t.start_as_current_span(
            "execute_tool refund",
            attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "refund"},
        ) as span:
            span.record_exception(PermissionError("not allowed"))
            span.set_status(Status(StatusCode.ERROR, "not allowed"))
        _chat(t, "m", (1, 1), **{"error.type": "RateLimitError"})
    assert found["tool_calls"][0]["error"] == "PermissionError: not allowed"
    assert found["model_calls"][0]["error"] == "RateLimitError"


def test_without_tool_spans_the_calls_the_model_asked_for_count_with_their_results(
    tracer,
) -> None:
    # What the openai SDK's instrumentation records of an agent that runs its tools in
    # plain code: the model's tool_call parts, then the tool_call_response sent back.
    collector, t = tracer
    asked = [
        {
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "id": "c1", "name": "weather", "arguments": {"city": "Oslo"}},
                {"type": "tool_call", "id": "c2", "name": "clock", "arguments": {}},
            ],
        }
    ]
    sent = [
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c2", "response": "9:00"}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "-3C"}]},
    ]
    with spans_of_call(collector, t) as found:
        _chat(t, "m", (3, 4), **{"gen_ai.output.messages": json.dumps(asked)})
        _chat(t, "m", (9, 2), **{"gen_ai.input.messages": json.dumps(sent)})
    assert found["tools_called"] == ["weather", "clock"]
    assert [c["result"] for c in found["tool_calls"]] == ["-3C", "9:00"]
    assert found["tool_calls"][0]["arguments"] == {"city": "Oslo"}


def test_openinference_spans(tracer) -> None:
    collector, t = tracer
    with spans_of_call(collector, t) as found:
        _span(
            t,
            "ChatOpenAI",
            {
                "openinference.span.kind": "LLM",
                "llm.model_name": "gpt-4o",
                "llm.token_count.prompt": 12,
                "llm.token_count.completion": 3,
                "llm.token_count.total": 15,
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.tool_calls.0.tool_call.id": "x",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "lookup",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"k": 1}',
            },
        )
        _span(
            t,
            "retrieve",
            {
                "openinference.span.kind": "RETRIEVER",
                "retrieval.documents.0.document.content": "Refunds take 30 days.",
                "retrieval.documents.0.document.id": "doc-1",
                "retrieval.documents.0.document.score": 0.9,
                "retrieval.documents.1.document.content": "Shipping is free.",
            },
        )
        _span(
            t,
            "lookup",
            {
                "openinference.span.kind": "TOOL",
                "tool.name": "lookup",
                "input.value": '{"k": 1}',
                "output.value": "found",
            },
        )
    assert found["model_calls"] == [
        {
            "model": "gpt-4o",
            "prompt_tokens": 12,
            "completion_tokens": 3,
            "token_count": 15,
            "latency_ms": found["model_calls"][0]["latency_ms"],
            "error": None,
        }
    ]
    # A TOOL span ran: it is the call (the model's request for it is not counted twice).
    assert found["tool_calls"] == [
        {"name": "lookup", "arguments": {"k": 1}, "result": "found", "error": None}
    ]
    assert found["context"] == ["Refunds take 30 days.", "Shipping is free."]
    assert found["retrieved_docs"][0] == {
        "content": "Refunds take 30 days.",
        "id": "doc-1",
        "score": 0.9,
    }


def test_genai_retrieval_documents(tracer) -> None:
    collector, t = tracer
    documents = [{"id": "a", "score": 0.5, "content": "Alpha."}, {"text": "Beta."}, "Gamma."]
    with spans_of_call(collector, t) as found:
        _span(
            t,
            "retrieval kb",
            {
                "gen_ai.operation.name": "retrieval",
                "gen_ai.retrieval.documents": json.dumps(documents),
            },
        )
    assert found["context"] == ["Alpha.", "Beta.", "Gamma."]
    assert "token_count" not in found  # no model call reported tokens: no count made up


def test_calls_side_by_side_keep_their_own_spans(tracer) -> None:
    collector, t = tracer
    results: dict[str, dict[str, Any]] = {}
    ready = threading.Barrier(2)

    def agent(tool: str) -> None:
        with spans_of_call(collector, t) as found:
            ready.wait()  # both calls open at once
            _span(t, tool, {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool})
            ready.wait()
        results[tool] = found

    threads = [threading.Thread(target=agent, args=(name,)) for name in ("one", "two")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results["one"]["tools_called"] == ["one"]
    assert results["two"]["tools_called"] == ["two"]


def test_a_root_span_the_agent_starts_in_the_call_still_counts(tracer) -> None:
    collector, t = tracer
    # The agent's own root span: a trace of its own, started inside the call.
    with spans_of_call(collector, t) as found, t.start_as_current_span("run", context=Context()):
        _span(t, "tool", {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "x"})
    _span(t, "later", {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "late"})
    assert found["tools_called"] == ["x"]
    assert found["span_count"] == 2


def test_spans_outside_any_call_are_not_kept(tracer) -> None:
    collector, t = tracer
    _span(t, "before", {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "b"})
    with spans_of_call(collector, t) as found:
        pass
    assert found["tools_called"] == []
    assert found["span_count"] == 0


def test_a_call_that_raised_gives_no_metadata(tracer) -> None:
    collector, t = tracer
    with pytest.raises(ValueError), spans_of_call(collector, t) as found:
        raise ValueError("boom")
    assert found == {}


def test_what_the_target_returns_wins_over_what_was_captured() -> None:
    captured = {"tools_called": ["search"], "latency_ms": 12.0, "token_count": 9}
    # The spec's (or a returned interaction's) metadata over the captured keys.
    assert with_captured({"latency_ms": 1}, captured) == {
        "tools_called": ["search"],
        "latency_ms": 1,
        "token_count": 9,
    }
    # A `{response, metadata}` answer that says its tools: its word is taken.
    answer = {"response": {"content": "hi"}, "metadata": {"tools_called": ["mine"], "x": 1}}
    assert with_captured({}, captured, answer) == {
        "tools_called": ["mine"],
        "latency_ms": 12.0,
        "token_count": 9,
    }
    assert with_captured({"a": 1}, None) == {"a": 1}


def test_parse_json_reads_arguments_and_keeps_plain_text() -> None:
    assert parse_json('{"a": [1, 2]}') == {"a": [1, 2]}
    assert parse_json("order A1 ships") == "order A1 ships"
    assert parse_json("{not json") == "{not json"
    assert parse_json(("x", "y")) == ["x", "y"]


def test_capture_problem_names_the_extra() -> None:
    assert capture_problem("off") is None
    assert capture_problem("otel") is None  # the dev extra brings the SDK
    assert "one of off, otel" in (capture_problem("spans") or "")


def test_an_instrumentation_that_does_not_load_is_an_error_naming_it(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An installed instrumentation whose import fails (a dependency of the wrong version).
    package = tmp_path / "broken_instrumentation"
    package.mkdir()
    (package / "__init__.py").write_text("from missing_dependency import Instruments\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(
        otel, "INSTRUMENTATIONS", (("broken_instrumentation", "Instrumentor", "json"),)
    )
    with pytest.raises(otel.CaptureUnavailable) as raised:
        otel._instrument()  # noqa: SLF001 (the step under test, without the global provider)
    assert "broken_instrumentation is installed but does not load" in str(raised.value)
    assert "ModuleNotFoundError" in str(raised.value)
    # Not installed, or for a package that is not: skipped.
    monkeypatch.setattr(
        otel,
        "INSTRUMENTATIONS",
        (("not_installed.x", "I", "json"), ("broken_instrumentation", "I", "no_such_package")),
    )
    otel._instrument()  # noqa: SLF001


def test_a_model_call_inside_another_counts_once(tracer) -> None:
    # A framework's chat span with the SDK's own chat span under it: one call.
    collector, t = tracer
    with spans_of_call(collector, t) as found:
        for _ in range(2):
            outer = t.start_as_current_span("framework chat", attributes=_chat_attributes("m", 5))
            with outer, t.start_as_current_span("request"):  # something in between
                _chat(t, "m", (5, 1))
    assert len(found["model_calls"]) == 2
    assert found["token_count"] == 12


def test_a_call_keeps_a_bounded_number_of_spans(tracer, monkeypatch: pytest.MonkeyPatch) -> None:
    collector, t = tracer
    monkeypatch.setattr(otel, "MAX_SPANS_PER_CALL", 3)
    with spans_of_call(collector, t) as found:
        for i in range(5):
            _span(
                t, f"t{i}", {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": f"t{i}"}
            )
    assert found["tools_called"] == ["t0", "t1", "t2"]
    assert (found["span_count"], found["spans_dropped"]) == (3, 2)
