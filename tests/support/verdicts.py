"""LLM-judged suites run by the real command against the OpenAI stub, and a verdict-cache writer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.openai_stub import OpenAIStub

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]


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


def run(project: Path, stub: OpenAIStub, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "CHECKSPEC_API_BASE": stub.base_url,
        "CHECKSPEC_API_KEY": "sk-test",
        "CHECKSPEC_MODEL": "openai/judge",
    }
    env.pop("CHECKSPEC_CACHE_DIR")  # the default place: .checkspec/cache at the root
    return subprocess.run(
        [*CLI, "run", ".", "--format", "json", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


WRITER = """
import sys
from checkspec.engine.llm import verdict_cache
verdict_cache.configure(sys.argv[1])
for i in range(300):
    verdict_cache.put(verdict_cache.key_of(sys.argv[2], i), {"passed": True, "reason": str(i)})
"""
