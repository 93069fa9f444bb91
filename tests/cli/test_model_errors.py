"""Model errors that say what to fix (issue 47 item 4). A model litellm cannot route is an
input error before anything is sent: exit 2 naming the model and where it was set, for
`run`, `generate` and `calibrate`, only when the command would call a model (the judge's
endpoint is the local stub, which must receive nothing). A provider's long error is shown
in full once in a run's text report, not once per check."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from checkspec.engine.llm.routable import route_problem
from tests.support.cli import Done, run_main
from tests.support.openai_stub import OpenAIStub, judged_suite, running_stub

DETERMINISTIC = """name: plain
steps:
  - interacts: [{inputs: a, outputs: b}]
    checks: [{kind: string_matching, keyword: b}]
"""
LABELLED = """name: labelled
steps:
  - interacts: [{inputs: q, outputs: 'Sorry.'}]
    checks: [{kind: conformity, rule: apologises, expect: pass}]
"""


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with running_stub() as server:
        server.chat = lambda body: OpenAIStub.verdict(True, "fine")
        yield server


def cli(root: Path, stub: OpenAIStub, *args: str, **env: str) -> Done:
    given = {"CHECKSPEC_API_BASE": stub.base_url, "CHECKSPEC_API_KEY": "sk-test", **env}
    return run_main(root, *args, env=given, unset=("CHECKSPEC_", "OPENAI_"))


def project(root: Path, config: str) -> Path:
    (root / "checkspec.yaml").write_text(config)
    (root / "j.suite.yaml").write_text(judged_suite(2))
    (root / "plain.scenario.yaml").write_text(DETERMINISTIC)
    return root


def test_a_model_from_the_file_is_refused_with_its_line(tmp_path: Path, stub: OpenAIStub) -> None:
    root = project(tmp_path, "jobs: 1\nmodel: gpt4o-mini\n")
    done = cli(root, stub, "run", ".")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "checkspec.yaml:2: error: model 'gpt4o-mini' cannot be called" in done.stderr
    assert "did you mean openai/gpt-4o-mini?" in done.stderr
    assert done.stderr.count("cannot be called") == 1  # once, not once per check
    assert done.stdout == "" and not stub.chat_requests


def test_the_flag_and_the_environment_are_named(tmp_path: Path, stub: OpenAIStub) -> None:
    root = project(tmp_path, "model: openai/fine\n")
    flag = cli(root, stub, "run", "j.suite.yaml", "--model", "gpt4o-mini")
    assert flag.returncode == 2
    assert "error: model 'gpt4o-mini' (from --model) cannot be called" in flag.stderr
    (root / "checkspec.yaml").write_text("jobs: 1\n")
    env = cli(root, stub, "run", "j.suite.yaml", CHECKSPEC_MODEL="nobody/knows")
    assert env.returncode == 2
    assert "error: model 'nobody/knows' (from CHECKSPEC_MODEL) cannot be called" in env.stderr
    assert not stub.chat_requests


def test_a_run_that_calls_no_model_does_not_need_one(tmp_path: Path, stub: OpenAIStub) -> None:
    root = project(tmp_path, "model: gpt4o-mini\n")
    done = cli(root, stub, "run", "plain.scenario.yaml")
    assert done.returncode == 0, done.stderr
    assert "1 passed" in done.stdout


def test_generate_and_calibrate_check_their_model_first(tmp_path: Path, stub: OpenAIStub) -> None:
    root = project(tmp_path, "model: openai/fine\n")
    (root / "l.scenario.yaml").write_text(LABELLED)
    generated = cli(
        root, stub, "generate", "--preset", "impatient_customer", "-n", "2", "--model", "gpt4o-mini"
    )
    assert generated.returncode == 2, generated.stderr
    assert "error: model 'gpt4o-mini' (from --model) cannot be called" in generated.stderr
    assert not (root / "generated.dataset.yaml").exists()
    calibrated = cli(root, stub, "calibrate", "l.scenario.yaml", "--model", "gpt4o-mini")
    assert calibrated.returncode == 2, calibrated.stderr
    assert "error: model 'gpt4o-mini' (from --model) cannot be called" in calibrated.stderr
    assert not stub.chat_requests


def test_routable_names_pass() -> None:
    for name in ("openai/anything", "anthropic/claude-x", "ollama/llama3", "gpt-4o-mini"):
        assert route_problem(name) is None, name
    assert route_problem("gpt4o-mini") is not None


def test_a_long_provider_error_is_shown_once(tmp_path: Path, stub: OpenAIStub) -> None:
    root = project(tmp_path, "model: openai/judge\n")
    (root / "j.suite.yaml").write_text(judged_suite(3))
    stub.chat = lambda body: 400
    stub.error_message = "This model does not exist or you do not have access to it. " * 4
    done = cli(root, stub, "run", "j.suite.yaml", "--no-cache")
    assert done.returncode == 1, done.stderr
    assert len(stub.chat_requests) == 3  # each check asked, each failed
    assert done.stdout.count("do not have access to it") == 4  # one message, in full
    assert done.stdout.count("same error as above (j.suite.yaml:6, model openai/judge)") == 2
    json_report = cli(root, stub, "run", "j.suite.yaml", "--no-cache", "--format", "json")
    assert json_report.stdout.count("do not have access to it") == 12  # every check's, whole
