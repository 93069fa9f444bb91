"""`checkspec generate` as a user runs it (a subprocess), where the exit code matters."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.generate_helpers import knowledge_base
from tests.support.openai_stub import GenerationAnswers, running_stub
from tests.support.processes import default_sigint

CLI = [sys.executable, "-m", "checkspec.engine.cli.main", "generate"]


def _env(base_url: str, cache: Path) -> dict[str, str]:
    return {
        **os.environ,
        "CHECKSPEC_MODEL": "openai/stub-model",
        "CHECKSPEC_API_BASE": base_url,
        "CHECKSPEC_API_KEY": "sk-test",
        "CHECKSPEC_CACHE_DIR": str(cache),
    }


def test_an_existing_file_is_not_overwritten_without_force(tmp_path: Path) -> None:
    out = tmp_path / "mine.dataset.yaml"
    out.write_text("name: mine\nscenarios: []\n")
    done = subprocess.run(
        [*CLI, "--preset", "impatient_customer", "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={**os.environ, "CHECKSPEC_MODEL": "openai/unused"},
    )
    assert done.returncode == 2
    assert "exists: --force overwrites it, --append adds to it" in done.stderr
    assert out.read_text() == "name: mine\nscenarios: []\n"


def test_ctrl_c_writes_nothing_and_exits_130(tmp_path: Path) -> None:
    kb = knowledge_base(tmp_path)
    out = tmp_path / "kb.dataset.yaml"
    with running_stub() as stub:
        stub.chat = GenerationAnswers(latency=2.0)
        process = subprocess.Popen(
            [*CLI, "--from-docs", str(kb), "-n", "3", "-o", str(out)],
            preexec_fn=default_sigint,
            cwd=tmp_path,
            env=_env(stub.base_url, tmp_path / "cache"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        while not stub.chat_requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert stub.chat_requests, "no request reached the stub"
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
    assert process.returncode == 130, err
    assert "interrupted" in err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".kb.dataset")] == []


def test_a_failing_provider_exits_1_and_appends_nothing(tmp_path: Path) -> None:
    out = tmp_path / "faq.dataset.yaml"
    original = "name: faq\nscenarios:\n  - interactions:\n      - input: {messages: [{role: user, content: hi}]}\n"
    out.write_text(original)
    with running_stub() as stub:
        stub.chat = lambda body: 500
        done = subprocess.run(
            [*CLI, "--preset", "impatient_customer", "-n", "2", "-o", str(out), "--append"],
            cwd=tmp_path,
            env=_env(stub.base_url, tmp_path / "cache"),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1, done.stderr
    assert "the provider failed, nothing was written" in done.stderr
    assert "stub error 500" in done.stderr
    assert out.read_text() == original
