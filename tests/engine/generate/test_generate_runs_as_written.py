"""Generated suites run as written (issue 35 item 6) and `run --dry-run` counts the calls
the run sends (item 5): a workspace whose target is a plain `answer(question: str) -> str`,
a suite generated from a knowledge base against the local stub, run with no edit."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.support.cli import Done, run_main
from tests.support.generate_helpers import generator_and_passing_judges, knowledge_base
from tests.support.openai_stub import GenerationAnswers, OpenAIStub, running_stub
from tests.support.paths import REPO

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
EXAMPLES = REPO / "examples"
AGENT = """def answer(question: str) -> str:
    return "Our policies are on the website. You asked: " + question
"""


def cli(cwd: Path, *args: str) -> Done:
    return run_main(cwd, *args, env={"CHECKSPEC_API_KEY": "sk-test"}, unset=("CHECKSPEC_",))


def requests(stub: OpenAIStub) -> int:
    return len(stub.chat_requests) + len(stub.embedding_requests)


@pytest.fixture(name="stub")
def stub_fixture() -> Iterator[OpenAIStub]:
    """The stub answering generation prompts as a model would, and every judge: pass."""
    answers = GenerationAnswers()
    with running_stub() as stub:
        stub.chat = generator_and_passing_judges(answers)
        stub.embeddings = lambda text: [1.0, 0.0, float(len(text) % 7)]
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


def test_a_generated_suite_runs_against_a_plain_string_target(
    workspace: Path, stub: OpenAIStub
) -> None:
    made = cli(workspace, "generate", "--from-docs", "kb", "-o", "suites/gen.dataset.yaml")
    assert made.returncode == 0, made.stderr
    written = yaml.safe_load((workspace / "suites/gen.dataset.yaml").read_text())
    assert written["target"] == "python:agent:answer"  # the target it was made for
    rows = written["scenarios"]
    assert rows and all("messages" in r["interactions"][0]["input"] for r in rows)
    # Reviewed: drafts become active, as `checkspec status active` would make them.
    text = (workspace / "suites/gen.dataset.yaml").read_text()
    (workspace / "suites/gen.dataset.yaml").write_text(text.replace("status: draft", ""))

    dry = cli(workspace, "run", "--dry-run", "--format", "json", "suites")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    estimated = json.loads(dry.stdout)["total"]["calls"]
    before = requests(stub)
    ran = cli(workspace, "run", "suites", "--no-cache", "--format", "json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    report = json.loads(ran.stdout)
    statuses = {s["status"] for s in report["scenarios"]}
    assert statuses == {"pass"}, ran.stdout
    sent = requests(stub) - before
    assert sent > 0 and estimated == sent
    # The plain function was given the text of the last user message and its answer was
    # read as the response content.
    judged = [r for r in stub.chat_requests[before:] if "You asked: " in str(r)]
    assert judged and "{'messages'" not in str(judged[0])


def test_a_chat_function_and_an_http_endpoint_keep_working(tmp_path: Path) -> None:
    """examples/agent.py's `chat` takes the row's messages and answers a response object;
    the example datasets run against it (and their recorded answers) as before."""
    shutil.copytree(EXAMPLES, tmp_path / "ex", ignore=shutil.ignore_patterns(".checkspec"))
    done = cli(tmp_path / "ex", "run", "faq.dataset.yaml", "--target", "python:agent:chat")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_dry_run_of_the_example_workspace_equals_the_run(
    tmp_path: Path, stub: OpenAIStub
) -> None:
    folder = tmp_path / "ex"
    shutil.copytree(EXAMPLES, folder, ignore=shutil.ignore_patterns(".checkspec"))
    config = folder / "checkspec.yaml"
    config.write_text(config.read_text() + f"model: openai/stub-model\napi_base: {stub.base_url}\n")
    dry = cli(folder, "run", "--dry-run", "--format", "json", ".", "--include-drafts")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    estimated = json.loads(dry.stdout)["total"]["calls"]
    before = requests(stub)
    cli(folder, "run", ".", "--no-cache", "--include-drafts")
    assert estimated == requests(stub) - before > 0


def test_checks_inside_compositions_and_per_rule_judges_are_counted(
    workspace: Path, stub: OpenAIStub
) -> None:
    (workspace / "suites").mkdir()
    (workspace / "suites" / "c.scenario.yaml").write_text(
        """name: composed
steps:
  - interacts: [{inputs: Where do you ship?}]
    checks:
      - kind: all_of
        checks:
          - {kind: conformity, rule: The answer is polite.}
          - {kind: not, check: {kind: conformity, rule: The answer is rude.}}
""",
        encoding="utf-8",
    )
    (workspace / "suites" / "d.dataset.yaml").write_text(
        """name: d
scenarios:
  - interactions:
      - input: {messages: [{role: user, content: Do you ship to Norway?}]}
        checks:
          - identifier: hub_conformity
            params: {rules: [Be polite., Be brief., Name the country.]}
""",
        encoding="utf-8",
    )
    stub.chat = lambda body: json.dumps({"passed": True, "reason": "ok"})
    dry = cli(workspace, "run", "--dry-run", "--format", "json", "suites")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    estimated = json.loads(dry.stdout)["total"]["calls"]
    before = requests(stub)
    cli(workspace, "run", "suites", "--no-cache")
    sent = requests(stub) - before
    assert estimated == 5 == sent  # conformity + the one under `not` + three rules
