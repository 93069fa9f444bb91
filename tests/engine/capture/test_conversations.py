"""Exported spans grouped into conversations and made draft dataset rows
(engine/capture/conversations.py). The spans' attributes are those the openai SDK's
instrumentation, pydantic-ai and OpenInference write (tests/cli/test_traces.py runs the
real ones)."""

from __future__ import annotations

import json
from typing import Any

from checkspec.engine.capture.conversations import drafts
from checkspec.engine.capture.otlp import ExportedSpan
from checkspec.engine.capture.spans import SpanView

USER = {"role": "user", "parts": [{"type": "text", "content": "Where is A123?"}]}
CALL = {
    "type": "tool_call",
    "id": "call_1",
    "name": "lookup_order",
    "arguments": {"order_id": "A123"},
}
ASKED = {"role": "assistant", "parts": [CALL]}
RESULT = {
    "role": "tool",
    "parts": [{"type": "tool_call_response", "id": "call_1", "response": "ships tomorrow"}],
}
ANSWER = {"role": "assistant", "parts": [{"type": "text", "content": "It ships tomorrow."}]}


def chat(trace: str, start: int, sent: list, said: dict, **extra: Any) -> ExportedSpan:
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "stub-model",
        "gen_ai.usage.input_tokens": 3,
        "gen_ai.usage.output_tokens": 4,
        "gen_ai.input.messages": json.dumps(sent),
        "gen_ai.output.messages": json.dumps([{**said, "finish_reason": "stop"}]),
        **extra,
    }
    view = SpanView("chat stub-model", attributes, start, start + 1_000_000, span_id=start)
    return ExportedSpan(trace, view, "orders-agent")


def bare_sdk_turn(
    first: str, second: str, start: int, history: list | None = None
) -> list[ExportedSpan]:
    """An agent on the bare openai SDK with no span of its own: each model call a trace."""
    before = history or []
    return [
        chat(first, start, [*before, USER], ASKED),
        chat(second, start + 10_000_000, [*before, USER, ASKED, RESULT], ANSWER),
    ]


def test_the_model_calls_of_one_answer_are_one_turn_though_each_is_a_trace() -> None:
    made = drafts(bare_sdk_turn("t1", "t2", 1_000_000_000))
    (row,) = made.rows
    assert row["status"] == "draft"
    assert row["interactions"] == [
        {
            "input": {"messages": [{"role": "user", "content": "Where is A123?"}]},
            "output": {"response": {"role": "assistant", "content": "It ships tomorrow."}},
        }
    ]
    annotations = row["annotations"]
    assert annotations["trace_ids"] == ["t1", "t2"]
    assert annotations["service"] == "orders-agent"
    (captured,) = annotations["captured"]
    assert captured["tools_called"] == ["lookup_order"]
    assert captured["tool_calls"][0]["result"] == "ships tomorrow"
    assert captured["token_count"] == 14
    assert captured["latency_ms"] == 11.0
    assert len(captured["model_calls"]) == 2


def test_separate_questions_are_separate_scenarios_in_the_order_they_started() -> None:
    spans = bare_sdk_turn("b1", "b2", 5_000_000_000) + bare_sdk_turn("a1", "a2", 1_000_000_000)
    made = drafts(spans)
    assert [r["annotations"]["trace_ids"] for r in made.rows] == [["a1", "a2"], ["b1", "b2"]]


def test_a_later_question_in_the_same_history_is_the_next_turn() -> None:
    history = [USER, ASKED, RESULT, ANSWER]
    follow_up = {"role": "user", "parts": [{"type": "text", "content": "And B7?"}]}
    later = [
        chat(
            "t3",
            3_000_000_000,
            [*history, follow_up],
            {"role": "assistant", "parts": [{"type": "text", "content": "B7 too."}]},
        )
    ]
    (row,) = drafts(bare_sdk_turn("t1", "t2", 1_000_000_000) + later).rows
    second = row["interactions"][1]
    assert second["input"]["messages"] == [
        {"role": "user", "content": "Where is A123?"},
        {"role": "assistant", "content": "It ships tomorrow."},
        {"role": "user", "content": "And B7?"},
    ]
    assert second["output"]["response"]["content"] == "B7 too."
    assert len(row["annotations"]["captured"]) == 2


def test_traces_naming_one_conversation_id_are_its_turns() -> None:
    first = chat("c1", 1_000_000_000, [USER], ANSWER, **{"gen_ai.conversation.id": "conv-9"})
    other = {"role": "user", "parts": [{"type": "text", "content": "Thanks"}]}
    second = chat(
        "c2",
        2_000_000_000,
        [other],
        ANSWER,
        **{"session.id": "x", "gen_ai.conversation.id": "conv-9"},
    )
    (row,) = drafts([second, first]).rows
    assert [i["input"]["messages"][-1]["content"] for i in row["interactions"]] == [
        "Where is A123?",
        "Thanks",
    ]
    assert row["annotations"]["conversation_id"] == "conv-9"


def test_openinference_spans_give_the_messages() -> None:
    attributes = {
        "openinference.span.kind": "LLM",
        "llm.input_messages.0.message.role": "system",
        "llm.input_messages.0.message.content": "Be brief.",
        "llm.input_messages.1.message.role": "user",
        "llm.input_messages.1.message.content": "Hello?",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "Hi.",
        "llm.token_count.total": 9,
    }
    view = SpanView("ChatCompletion", attributes, 1, 2, span_id=1)
    (row,) = drafts([ExportedSpan("t", view, None)]).rows
    assert row["interactions"][0]["input"]["messages"] == [{"role": "user", "content": "Hello?"}]
    assert row["interactions"][0]["output"]["response"]["content"] == "Hi."
    assert row["annotations"]["captured"][0]["token_count"] == 9
    assert "service" not in row["annotations"]


def test_a_trace_with_no_user_message_is_skipped_saying_why() -> None:
    view = SpanView("chat", {"gen_ai.operation.name": "chat"}, 1, 2, span_id=1)
    made = drafts([ExportedSpan("quiet", view, "svc")])
    assert made.rows == []
    (why,) = made.skipped
    assert "trace quiet (svc): no user message" in why
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in why
