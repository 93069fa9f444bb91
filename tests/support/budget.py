"""The run budget (`max_cost`) test: a priced model, 12 judged scenarios, a slow stub."""

from __future__ import annotations

import json
from typing import Any

from tests.support.openai_stub import OpenAIStub, judged_suite

PRICES = "models:\n  openai/private:\n    input_cost_per_token: 0.001\n    output_cost_per_token: 0.001\n"
CONFIG = f"model: openai/private\njobs: 2\nconcurrency: 8\n{PRICES}"
SUITE = judged_suite(12)
# `checkspec run` arguments: a budget the 12 scenarios overrun.
ARGS = ("--no-cache", "--max-cost", "1.0", "--format", "json")


def assert_budget_held(returncode: int, stdout: str, stderr: str, stub: OpenAIStub) -> None:
    """Spent plus in flight never passed the budget; the scenarios refused are errors
    that say so, none is lost."""
    report: dict[str, Any] = json.loads(stdout)
    assert returncode == 1, stderr
    assert len(report["scenarios"]) == 12  # none lost
    spent = report["usage"]
    assert spent["requests"] == len(stub.chat_requests) > 0
    assert spent["cost_usd"] <= 1.0  # spent plus in flight never passed the budget
    refused = [
        s
        for s in report["scenarios"]
        if "budget reached" in (s["steps"][0]["results"][0]["message"] or "")
    ]
    assert refused and len(refused) + spent["requests"] == 12
    assert all(s["status"] == "error" for s in refused)
