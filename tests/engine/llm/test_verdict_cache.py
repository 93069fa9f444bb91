"""The persistent verdict cache: a second run of an unchanged LLM-judged suite sends no
request; a changed prompt, an error or --no-cache does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from checkspec.engine.llm import verdict_cache
from tests.support.openai_stub import OpenAIStub, running_stub
from tests.support.verdicts import WRITER, run, suite


@pytest.fixture
def stub():
    with running_stub() as running:
        running.chat = lambda body: OpenAIStub.verdict(True, "It apologises.")
        yield running


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "checkspec.yaml").write_text("jobs: 2\n")
    (tmp_path / "j.suite.yaml").write_text(suite(["apologises", "offers a refund", "is brief"]))
    return tmp_path


def test_a_second_run_of_an_unchanged_suite_sends_no_request(
    project: Path, stub: OpenAIStub
) -> None:
    first = run(project, stub)
    assert first.returncode == 0, first.stderr
    assert len(stub.chat_requests) == 3
    assert (project / ".checkspec" / "cache" / "verdicts.sqlite").is_file()
    second = run(project, stub)
    assert len(stub.chat_requests) == 3  # nothing more
    before, after = json.loads(first.stdout), json.loads(second.stdout)
    messages = [
        [r["message"] for step in s["steps"] for r in step["results"]] for s in after["scenarios"]
    ]
    assert messages == [
        [r["message"] for step in s["steps"] for r in step["results"]] for s in before["scenarios"]
    ]


def test_a_changed_prompt_misses_and_no_cache_asks_again(project: Path, stub: OpenAIStub) -> None:
    run(project, stub)
    (project / "j.suite.yaml").write_text(suite(["apologises", "offers a refund", "is polite"]))
    run(project, stub)
    assert len(stub.chat_requests) == 4
    assert "is polite" in stub.prompts[-1]
    run(project, stub, "--no-cache")
    assert len(stub.chat_requests) == 7


def test_provider_errors_are_never_cached(project: Path, stub: OpenAIStub) -> None:
    stub.chat = None  # unscripted: HTTP 500 on every attempt
    failed = run(project, stub)
    assert failed.returncode == 1
    assert {s["status"] for s in json.loads(failed.stdout)["scenarios"]} == {"error"}
    asked = len(stub.chat_requests)
    stub.chat = lambda body: OpenAIStub.verdict(True, "fine now")
    again = run(project, stub)
    assert again.returncode == 0
    assert len(stub.chat_requests) == asked + 3


def test_the_cache_folder_can_be_chosen(project: Path, stub: OpenAIStub, tmp_path: Path) -> None:
    run(project, stub, "--cache-dir", "elsewhere")
    assert (project / "elsewhere" / "verdicts.sqlite").is_file()
    assert not (project / ".checkspec" / "cache").exists()


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), name]) for name in "abc"
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0]
    verdict_cache.configure(tmp_path)
    try:
        for name in "abc":
            for i in range(300):
                assert verdict_cache.get(verdict_cache.key_of(name, i)) == {
                    "passed": True,
                    "reason": str(i),
                }
    finally:
        verdict_cache.configure(None)


def test_the_least_recently_used_answers_go_first_past_the_size_limit(tmp_path: Path) -> None:
    verdict_cache.configure(tmp_path, max_mb=0.01)  # 10 kB
    try:
        text = "x" * 900
        for i in range(30):
            verdict_cache.put(f"k{i}", text)
            if i >= 1:
                verdict_cache.get("k0")  # kept in use: survives
        kept = [i for i in range(30) if verdict_cache.get(f"k{i}") is not None]
        assert 0 in kept and 29 in kept and 1 not in kept
        assert len(kept) <= 11
    finally:
        verdict_cache.configure(None)


def test_no_folder_no_cache(tmp_path: Path) -> None:
    verdict_cache.configure(None)
    verdict_cache.put("k", 1)
    assert verdict_cache.get("k") is None
