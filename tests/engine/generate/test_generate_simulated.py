"""`generate --turns K --simulate` (issue 38 item 5): the first user turn is written, the
follow-ups are written when the suite runs, by the engine's user simulator, from the
agent's real answers and with the persona's goal, up to K-1 of them. Shown end to end: a
suite generated against the stub, then run (`checkspec run`) against a fake agent."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.generate_helpers import generator_and_passing_judges, knowledge_base
from tests.support.openai_stub import GenerationAnswers, OpenAIStub, running_stub

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
# The fake agent numbers its answers and keeps every message it is sent.
AGENT = """import pathlib

def answer(question: str) -> str:
    log = pathlib.Path(__file__).with_name("received.txt")
    seen = log.read_text().count("\\n") if log.exists() else 0
    with log.open("a") as file:
        file.write(question.replace("\\n", " ") + "\\n")
    return f"ANSWER-{seen + 1}: we ship within five business days."
"""
FOLLOW_UPS = 2  # the stub's simulated user asks this many follow-ups, then has its answer


def simulated_user(prompt: str) -> dict[str, Any]:
    """The user simulator's next message: a follow-up quoting the agent's last answer."""
    answers = sorted({int(n) for n in re.findall(r"ANSWER-(\d+)", prompt)})
    if len(answers) > FOLLOW_UPS:
        return {"goal_reached": True, "message": None}
    return {"goal_reached": False, "message": f"About ANSWER-{answers[-1]}: and on weekends?"}


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHECKSPEC_")}
    env["CHECKSPEC_API_KEY"] = "sk-test"
    return subprocess.run(
        [*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=300, env=env
    )


@pytest.fixture(name="stub")
def stub_fixture() -> Iterator[OpenAIStub]:
    model = generator_and_passing_judges(GenerationAnswers())
    with running_stub() as stub:

        def chat(body: dict[str, Any]) -> str:
            prompt = body["messages"][-1]["content"]
            if prompt.startswith("You play a user talking to an AI agent"):
                return json.dumps(simulated_user(prompt))
            return model(body)

        stub.chat = chat
        yield stub


@pytest.fixture(name="workspace")
def workspace_fixture(tmp_path: Path, stub: OpenAIStub) -> Path:
    (tmp_path / "checkspec.yaml").write_text(
        f"model: openai/stub-model\napi_base: {stub.base_url}\ntarget: python:agent:answer\n",
        encoding="utf-8",
    )
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    knowledge_base(tmp_path)
    return tmp_path


def test_simulated_follow_ups_come_from_the_agents_real_answers(
    workspace: Path, stub: OpenAIStub
) -> None:
    made = cli(
        workspace,
        "generate",
        "--from-docs",
        "kb/shipping",
        "--preset",
        "frustrated_customer",
        "--types",
        "simple",
        "--turns",
        "4",
        "--simulate",
        "-n",
        "1",
        "-o",
        "sim.suite.yaml",
    )
    assert made.returncode == 0, made.stderr
    [scenario] = yaml.safe_load((workspace / "sim.suite.yaml").read_text())["scenarios"]
    first, simulated = scenario["steps"]
    assert len(first["interacts"]) == 1 and isinstance(first["interacts"][0]["inputs"], str)
    user = simulated["interacts"][0]["inputs"]
    assert user["kind"] == "user_simulator" and user["max_steps"] == 3  # up to K-1 more
    assert user["persona"].startswith("A customer frustrated")  # the persona's own words
    question = first["interacts"][0]["inputs"]
    assert question in user["context"]  # the goal: what the user came for
    provenance = scenario["annotations"]["generated"]
    assert provenance["simulated"] is True and provenance["persona"] == "frustrated_customer"
    assert provenance["turns"] == 4
    # The written question was asked for alone: follow-ups are not written now.
    asked = [p for p in stub.prompts if p.startswith("You write test questions")]
    assert asked and all('the only item of "turns"' in p for p in asked)

    ran = cli(workspace, "run", "sim.suite.yaml", "--include-drafts", "--no-cache")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    received = (workspace / "received.txt").read_text().splitlines()
    # The written question, then each follow-up quoting the answer it follows.
    assert received == [
        question.replace("\n", " "),
        "About ANSWER-1: and on weekends?",
        "About ANSWER-2: and on weekends?",
    ]
    simulator_prompts = [p for p in stub.prompts if p.startswith("You play a user")]
    assert len(simulator_prompts) == FOLLOW_UPS + 1  # the last says the goal is reached
    assert all("A customer frustrated" in p and question in p for p in simulator_prompts)


def test_fixed_turns_stay_the_default(workspace: Path, stub: OpenAIStub) -> None:
    made = cli(
        workspace,
        "generate",
        "--from-docs",
        "kb/shipping",
        "--types",
        "simple",
        "--turns",
        "2",
        "-n",
        "1",
        "-o",
        "fixed.dataset.yaml",
    )
    assert made.returncode == 0, made.stderr
    [row] = yaml.safe_load((workspace / "fixed.dataset.yaml").read_text())["scenarios"]
    assert len(row["interactions"]) == 2 and "simulated" not in row["annotations"]["generated"]
