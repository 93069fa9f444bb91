"""The last run's transcript (hover on a scenario's name, the editor's transcript view's
data) shows what the agent did in each turn that `capture: otel` recorded."""

from __future__ import annotations

from checkspec.engine.core.result import ScenarioResult, TestCaseResult
from checkspec.engine.core.trace import Interaction, Trace
from checkspec.server.analysis.run_results import turns
from checkspec.server.analysis.transcript import transcript_markdown

CAPTURED = {
    "tools_called": ["lookup_order"],
    "tool_calls": [
        {"name": "lookup_order", "arguments": {"order_id": "A1"}, "result": "ships", "error": None}
    ],
    "model_calls": [{"model": "gpt-x", "token_count": 9, "latency_ms": 12.0, "error": None}],
    "token_count": 9,
    "latency_ms": 30.0,
    "span_count": 2,
}


def result_of(*metadata: dict) -> ScenarioResult:
    interactions = [Interaction(inputs="q", outputs="a", metadata=m) for m in metadata]
    step = TestCaseResult(results=[], last_interaction_index=len(interactions) - 1)
    return ScenarioResult(
        scenario_name="s", steps=[step], final_trace=Trace(interactions=interactions)
    )


def test_captured_turns_carry_what_the_agent_did() -> None:
    found = turns(result_of(CAPTURED, {"written": "by the spec"}))
    assert found[0]["activity"] == [
        'tool lookup_order(order_id="A1") -> "ships"',
        "model gpt-x: 9 tokens, 12 ms",
        "1 tool call(s), 1 model call(s), 9 tokens, 30 ms (2 spans)",
    ]
    assert "activity" not in found[1]


def test_the_transcript_shows_it_after_the_answer() -> None:
    summary = {"status": "fail", "turns": turns(result_of(CAPTURED)), "checks": []}
    text = transcript_markdown(summary)
    assert "*what the agent did*" in text
    assert text.index("*outputs*") < text.index("*what the agent did*") < text.index("*metadata*")
    assert 'tool lookup_order(order_id="A1") -> "ships"' in text
