"""The HTML report shows, after each captured turn of a conversation, what the agent did
(`capture: otel`): its tool calls with arguments and results, its model calls with tokens
and latency. report.js is run by node over a minimal stand-in for the DOM."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from typing import Any

import pytest

from checkspec.engine.html.page import asset, page, slim_report
from tests.support.fake_dom import FAKE_DOM

SHOW = r"""
setTimeout(() => {
  for (const row of app.all((n) => n.tagName === "details" && n.className === "row")) {
    row.open = true; row.fire("toggle");
  }
  const did = app.all((n) => n.className === "turn activity").map((n) => n.textContent);
  console.log(JSON.stringify(did));
}, 0);
"""

CAPTURED = {
    "tools_called": ["lookup_order"],
    "tool_calls": [
        {
            "name": "lookup_order",
            "arguments": {"order_id": "A1"},
            "result": "<img src=x onerror=alert(1)>",
            "error": None,
        }
    ],
    "model_calls": [
        {"model": "gpt-x", "token_count": 9, "latency_ms": 12.4, "error": None},
        {"model": "gpt-x", "token_count": None, "latency_ms": 3.0, "error": "RateLimitError"},
    ],
    "token_count": 9,
    "latency_ms": 30.2,
    "span_count": 3,
}


def _payload() -> dict[str, Any]:
    def scenario(name: str, metadata: dict[str, Any]) -> dict[str, Any]:
        return {
            "scenario_name": name,
            "id": f"a.scenario.yaml::{name}",
            "file": "a.scenario.yaml",
            "status": "fail",
            "steps": [{"results": [{"status": "fail", "message": "m"}], "status": "fail"}],
            "final_trace": {
                "interactions": [{"inputs": "hi", "outputs": "a", "metadata": metadata}]
            },
        }

    scenarios = [scenario("captured", CAPTURED), scenario("plain", {"latency_ms": 5})]
    return {"status": "fail", "summary": {"fail": 2}, "scenarios": scenarios}


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the page's script")
def test_a_captured_turn_shows_what_the_agent_did() -> None:
    html = page("report", slim_report(_payload()), "t", compress_over=10**9)
    embedded = re.search(r'id="checkspec-data"[^>]*>(.*?)</script>', html, re.DOTALL)
    assert embedded
    program = (
        f"const DATA = {json.dumps(embedded.group(1))};\n" + FAKE_DOM + asset("report.js") + SHOW
    )
    done = subprocess.run(
        ["node", "-"], input=program, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    (shown,) = json.loads(done.stdout)  # one: the plain scenario's turn has none
    assert shown == (
        "did"
        'tool lookup_order({"order_id":"A1"}) → "<img src=x onerror=alert(1)>"\n'
        "model gpt-x: 9 tokens, 12 ms\n"
        "model gpt-x: 3 ms  ERROR RateLimitError\n"
        "1 tool call(s), 2 model call(s), 9 tokens, 30 ms"
    )
