"""The lines a failed scenario's text report shows of what capture recorded."""

from __future__ import annotations

from checkspec.engine.capture.summary import MAX_CALLS, activity_lines, has_capture
from checkspec.engine.core.safe_text import terminal


def test_each_call_then_the_totals() -> None:
    metadata = {
        "tool_calls": [
            {"name": "search", "arguments": {"q": "tea", "n": 2}, "result": ["a"], "error": None},
            {"name": "refund", "arguments": {}, "result": None, "error": "PermissionError: no"},
        ],
        "model_calls": [
            {"model": "gpt-x", "token_count": 12, "latency_ms": 40.4, "error": None},
            {"model": "gpt-x", "token_count": None, "latency_ms": 3.6, "error": "Timeout"},
        ],
        "token_count": 12,
        "latency_ms": 120.2,
        "span_count": 4,
    }
    assert activity_lines(metadata) == [
        'tool search(q="tea", n=2) -> ["a"]',
        "tool refund()  ERROR PermissionError: no",
        "model gpt-x: 12 tokens, 40 ms",
        "model gpt-x: 4 ms  ERROR Timeout",
        "2 tool call(s), 2 model call(s), 12 tokens, 120 ms (4 spans)",
    ]


def test_long_lists_and_values_are_cut_and_stay_on_one_line() -> None:
    calls = [
        {"name": f"t{i}", "arguments": {"x": "y" * 500}, "result": "a\nb\x1b[31m", "error": None}
        for i in range(MAX_CALLS + 3)
    ]
    lines = activity_lines({"tool_calls": calls, "latency_ms": 1, "span_count": 13})
    assert len(lines) == MAX_CALLS + 2
    assert lines[MAX_CALLS] == "... 3 more tool calls"
    assert all(len(line) < 200 for line in lines)
    assert lines[0].endswith('-> "a\\nb\\u001b[31m"')
    assert terminal(lines[0]) == lines[0]  # nothing left for a terminal to act on


def test_only_metadata_capture_filled_counts() -> None:
    assert has_capture({"span_count": 0, "tool_calls": []})
    assert not has_capture({"tools_called": ["written by hand"]})
    assert not has_capture(None)
