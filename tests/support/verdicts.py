"""LLM-judged suites run by the command line (in-process) against the OpenAI stub, and a
verdict-cache writer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import Done, run_main
from tests.support.openai_stub import OpenAIStub


def suite(rules: list[str]) -> str:
    parts = ["name: judged", "scenarios:"]
    for i, rule in enumerate(rules):
        parts += [
            f"  - name: s{i}",
            "    steps:",
            f"      - interacts: [{{inputs: q{i}, outputs: 'Sorry, here is a refund ({i}).'}}]",
            f"        checks: [{{kind: conformity, rule: '{rule}'}}]",
        ]
    return "\n".join(parts) + "\n"


def run(project: Path, stub: OpenAIStub, *args: str) -> Done:
    """`checkspec run . --format json` in-process (tests/support/cli.py), judged by `stub`;
    its verdict cache in the default place: .checkspec/cache at the root."""
    env = {
        "CHECKSPEC_API_BASE": stub.base_url,
        "CHECKSPEC_API_KEY": "sk-test",
        "CHECKSPEC_MODEL": "openai/judge",
    }
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("CHECKSPEC_CACHE_DIR", raising=False)
        return run_main(project, "run", ".", "--format", "json", *args, env=env)


WRITER = """
import sys
from checkspec.engine.llm import verdict_cache
verdict_cache.configure(sys.argv[1])
for i in range(300):
    verdict_cache.put(verdict_cache.key_of(sys.argv[2], i), {"passed": True, "reason": str(i)})
"""
