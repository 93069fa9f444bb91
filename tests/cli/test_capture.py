"""`capture: otel` end to end: a plain agent on the real openai SDK (one tool call, then
an answer; no tracing code of its own) talks to the local OpenAI-compatible stub; the run's
worker processes collect its spans through the real OpenTelemetry SDK and the openai
SDK's real instrumentation, and checks read what it did from `trace.last.metadata`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import run_main
from tests.support.openai_stub import OpenAIStub, ToolCallingAnswers, running_stub
from tests.support.processes import pytest_command
from tests.support.tool_agent import AGENT, FRAMEWORK_AGENT

CHECKS = """
name: looks the order up
target: python:agent:answer
steps:
  - interacts:
      - inputs: A123
    checks:
      - {kind: equals, target_key: 'trace.last.metadata.tools_called[0]', expected_value: lookup_order}
      - {kind: greater_than, target_key: trace.last.metadata.token_count, expected_value: 0}
      - {kind: less_than, target_key: trace.last.metadata.latency_ms, expected_value: 60000}
      - kind: equals
        target_key: 'trace.last.metadata.tool_calls[0].arguments.order_id'
        expected_value: A123
      - {kind: tool_called, tool: lookup_order, arguments: {order_id: A123}}
      - {kind: tools_in_order, tools: [lookup_order]}
      - {kind: no_span_errors}
      - {kind: max_model_calls, max_calls: 2}
      - {kind: string_matching, keyword: ships tomorrow}
"""

# What the same agent does not do: each check fails, saying what it did instead.
UNMET = """
name: expects another behaviour
target: python:agent:answer
steps:
  - interacts:
      - inputs: B7
    checks:
      - {kind: tool_called, tool: cancel_order}
      - {kind: tool_called, tool: lookup_order, arguments: {order_id: A123}}
      - {kind: tools_in_order, tools: [lookup_order, lookup_order]}
      - {kind: max_model_calls, max_calls: 1}
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with running_stub() as running:
        running.chat = ToolCallingAnswers()
        yield running


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    write(tmp_path, "agent.py", AGENT)
    write(tmp_path, "orders.scenario.yaml", CHECKS)
    return tmp_path


def _run(folder: Path, stub: OpenAIStub, *args: str) -> tuple[int, dict, str]:
    env = {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "test-key"}
    done = run_main(folder, "run", ".", "--format", "json", "--no-history", *args, env=env)
    report = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, report, done.stderr


def _interaction(report: dict) -> dict:
    return report["scenarios"][0]["final_trace"]["interactions"][-1]


def _results(report: dict) -> list[dict]:
    return [r for step in report["scenarios"][0]["steps"] for r in step["results"]]


def test_capture_otel_fills_the_metadata_checks_read(workspace: Path, stub: OpenAIStub) -> None:
    write(workspace, "checkspec.yaml", "capture: otel\n")
    code, report, err = _run(workspace, stub)
    assert code == 0, (err, _results(report))
    metadata = _interaction(report)["metadata"]
    assert metadata["tools_called"] == ["lookup_order"]
    assert metadata["tool_calls"] == [
        {
            "name": "lookup_order",
            "arguments": {"order_id": "A123"},
            "result": "order A123 ships tomorrow",
            "error": None,
        }
    ]
    # The stub counts words: what it answered is what was captured, call by call.
    assert [c["model"] for c in metadata["model_calls"]] == ["stub-model", "stub-model"]
    assert metadata["token_count"] == sum(c["token_count"] for c in metadata["model_calls"])
    assert metadata["prompt_tokens"] + metadata["completion_tokens"] == metadata["token_count"]
    assert len(stub.chat_requests) == 2
    # The test process itself was not instrumented: the agent ran in a worker.
    assert "opentelemetry.instrumentation.openai_v2" not in sys.modules


def test_without_capture_the_same_checks_fail_for_the_missing_key(
    workspace: Path, stub: OpenAIStub
) -> None:
    code, report, _ = _run(workspace, stub)
    assert code == 1
    assert _interaction(report)["metadata"] == {}
    results = _results(report)
    assert [r["status"] for r in results[:-1]] == ["error"] * 8
    assert "tools_called" in results[0]["message"]
    assert "capture: otel" in results[4]["message"]
    assert results[-1]["status"] == "pass"  # the agent answered all the same


def test_checks_of_what_the_agent_did_fail_saying_what_it_did(
    workspace: Path, stub: OpenAIStub
) -> None:
    (workspace / "orders.scenario.yaml").unlink()
    write(workspace, "unmet.scenario.yaml", UNMET)
    code, report, _ = _run(workspace, stub, "--capture", "otel")
    assert code == 1
    messages = [r["message"] for r in _results(report)]
    assert [r["status"] for r in _results(report)] == ["fail"] * 4
    assert messages[0] == "cancel_order was not called (called: lookup_order)."
    assert (
        "never with arguments matching {'order_id': 'A123'} (got {'order_id': 'B7'})"
        in (messages[1])
    )
    assert messages[2].startswith("lookup_order was not called after lookup_order")
    assert messages[3] == "2 model calls, more than 1."


def test_the_flag_turns_capture_on_over_the_file(workspace: Path, stub: OpenAIStub) -> None:
    write(workspace, "checkspec.yaml", "capture: 'off'\n")
    code, report, err = _run(workspace, stub, "--capture", "otel")
    assert code == 0, (err, _results(report))
    assert _interaction(report)["metadata"]["tools_called"] == ["lookup_order"]


def test_an_unknown_capture_mode_is_a_usage_error(workspace: Path, stub: OpenAIStub) -> None:
    code, _, err = _run(workspace, stub, "--capture", "spans")
    assert code == 2
    assert "invalid choice: 'spans'" in err


def test_capture_without_the_sdk_stops_before_the_run_naming_the_extra(
    workspace: Path, stub: OpenAIStub, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # The workers' interpreter: a fresh virtual environment without OpenTelemetry.
    import venv

    home = tmp_path_factory.mktemp("bare-venv")
    venv.EnvBuilder(with_pip=False).create(home)
    python = home / "bin" / "python"
    write(workspace, "checkspec.yaml", f"capture: otel\npython: {python}\n")
    code, _, err = _run(workspace, stub)
    assert code == 2
    assert "pip install 'checkspec[otel]'" in err
    assert str(python) in err
    assert stub.chat_requests == []  # nothing ran


def test_a_model_call_that_failed_fails_no_span_errors(workspace: Path, stub: OpenAIStub) -> None:
    (workspace / "orders.scenario.yaml").unlink()
    write(
        workspace,
        "fallback.scenario.yaml",
        """
        name: apologises when the model fails
        target: python:agent:answer_or_apologise
        steps:
          - interacts:
              - inputs: A123
            checks:
              - {kind: string_matching, keyword: Sorry}
              - {kind: no_span_errors}
        """,
    )
    stub.script(400)  # the first request is refused (openai does not retry a 400)
    code, report, _ = _run(workspace, stub, "--capture", "otel")
    assert code == 1
    passed, errors = _results(report)
    assert passed["status"] == "pass"
    assert errors["status"] == "fail"
    assert errors["message"].startswith("1 call(s) ended in error: model call stub-model:")
    assert "BadRequestError" in errors["message"]


def test_the_text_report_of_a_failed_scenario_shows_what_the_agent_did(
    workspace: Path, stub: OpenAIStub
) -> None:
    write(workspace, "unmet.scenario.yaml", UNMET)
    env = {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "test-key"}
    done = run_main(workspace, "run", ".", "--no-history", "--capture", "otel", env=env)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    at = lines.index("      what the agent did (interaction 1):")
    assert lines[at - 1].startswith("      FAIL max_model_calls at unmet.scenario.yaml:")
    assert (
        lines[at + 1] == '        | tool lookup_order(order_id="B7") -> "order B7 ships tomorrow"'
    )
    assert lines[at + 2].startswith("        | model stub-model: 3 tokens, ")
    assert lines[at + 3].startswith("        | model stub-model: 14 tokens, ")
    assert lines[at + 4].startswith("        | 1 tool call(s), 2 model call(s), 17 tokens, ")
    # The scenario that passed shows none of it.
    assert done.stdout.count("what the agent did") == 1


def _process(folder: Path, stub: OpenAIStub, *command: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "test-key"}
    return subprocess.run(
        command, cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_capture_in_process_when_the_run_asks_for_no_workers(
    workspace: Path, stub: OpenAIStub
) -> None:
    # A process of its own: in-process, the run instruments the process it runs in.
    checkspec = str(Path(sys.executable).parent / "checkspec")
    run = (checkspec, "run", ".", "--format", "json", "--no-history", "--capture", "otel")
    done = _process(workspace, stub, *run, "--executor", "inprocess")
    assert done.returncode == 0, done.stderr
    metadata = json.loads(done.stdout)["scenarios"][0]["final_trace"]["interactions"][0]["metadata"]
    assert metadata["tools_called"] == ["lookup_order"]


def test_capture_in_the_pytest_plugin(workspace: Path, stub: OpenAIStub) -> None:
    write(workspace, "checkspec.yaml", "capture: otel\n")
    pytest_run = pytest_command("-p", "checkspec", "-p", "no:asyncio", "-q")
    done = _process(workspace, stub, *pytest_run, "-p", "no:cacheprovider", ".")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_an_instrumentation_that_does_not_load_errors_each_scenario_naming_it(
    workspace: Path, stub: OpenAIStub, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # The workers find an OpenInference litellm instrumentation that fails to import.
    site = tmp_path_factory.mktemp("site")
    broken = site / "openinference" / "instrumentation" / "litellm"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('needs litellm<1.0')\n")
    env = {
        "OPENAI_BASE_URL": stub.base_url,
        "OPENAI_API_KEY": "test-key",
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
    }
    done = run_main(workspace, "run", ".", "--no-history", "--capture", "otel", env=env)
    assert done.returncode == 1
    assert (
        "ERROR scenario at orders.scenario.yaml:1: CaptureUnavailable during run: "
        "openinference.instrumentation.litellm is installed but does not load"
    ) in done.stdout
    assert "ImportError: needs litellm<1.0" in done.stdout
    assert stub.chat_requests == []  # the agent was not run blind


def test_capture_of_an_agent_built_on_a_framework(workspace: Path, stub: OpenAIStub) -> None:
    write(workspace, "agent.py", FRAMEWORK_AGENT)
    code, report, err = _run(workspace, stub, "--capture", "otel")
    assert code == 0, (err, _results(report))
    metadata = _interaction(report)["metadata"]
    # The tool as the framework ran it (its execute_tool span), with its result.
    assert metadata["tool_calls"] == [
        {
            "name": "lookup_order",
            "arguments": {"order_id": "A123"},
            "result": "order A123 ships tomorrow",
            "error": None,
        }
    ]
    # The framework's own spans were seen (its agent run, model calls and tool run), beside
    # the openai SDK's two.
    assert metadata["span_count"] >= 6
    # Two model calls, not four: the SDK's spans under the framework's are the same calls.
    assert len(metadata["model_calls"]) == 2 == len(stub.chat_requests)
    assert metadata["token_count"] == sum(c["token_count"] for c in metadata["model_calls"])


def test_capture_in_a_dataset(workspace: Path, stub: OpenAIStub) -> None:
    # A Hub-format row: the captured keys are in the interaction's metadata; its answer
    # stays as the target gave it (what --record writes and drift compares).
    (workspace / "orders.scenario.yaml").unlink()
    row = {
        "interactions": [
            {
                "input": {"messages": [{"role": "user", "content": "C3"}]},
                "checks": [
                    {"identifier": "tool_called", "params": {"tool": "lookup_order"}},
                    {
                        "identifier": "hub_metadata",
                        "params": {
                            "metadata_key": "trace.last.metadata",
                            "json_path_rules": [
                                {
                                    "json_path": "$.tools_called[0]",
                                    "expected_value": "lookup_order",
                                    "expected_value_type": "string",
                                }
                            ],
                        },
                    },
                ],
            }
        ]
    }
    write(workspace, "orders.dataset.jsonl", json.dumps(row) + "\n")
    code, report, err = _run(
        workspace, stub, "--capture", "otel", "--target", "python:agent:answer_chat"
    )
    assert code == 0, (err, _results(report))
    interaction = _interaction(report)
    assert interaction["outputs"] == {
        "response": {
            "role": "assistant",
            "content": "Here is what I found: order C3 ships tomorrow",
        }
    }
    assert interaction["metadata"]["tools_called"] == ["lookup_order"]

    # What the target says of itself in its answer's metadata wins.
    code, report, err = _run(
        workspace, stub, "--capture", "otel", "--target", "python:agent:answer_saying_its_tools"
    )
    interaction = _interaction(report)
    assert interaction["outputs"]["metadata"] == {"tools_called": ["mine"]}
    assert interaction["metadata"]["tools_called"] == ["mine"]
    assert interaction["metadata"]["token_count"] > 0  # the rest was captured
    assert code == 1  # tool_called: "mine" was called, not lookup_order
