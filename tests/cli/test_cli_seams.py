"""The seams between commands (issue 35 item 8): a closed pipe, --max-cost's unit, one
rendering of an unknown price, and `.checkspec/.gitignore` whichever command writes first."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checkspec.engine.core.usage import Usage, cost_of, format_cost
from checkspec.engine.history.render import history_text
from checkspec.engine.history.store import RunSummary
from checkspec.engine.html.page import render_report
from tests.support.openai_stub import running_stub
from tests.support.paths import REPO

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
EXAMPLES = REPO / "examples"


def cli(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )


@pytest.fixture(name="workspace")
def workspace_fixture(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    shutil.copytree(EXAMPLES, folder, ignore=shutil.ignore_patterns(".checkspec"))
    return folder


@pytest.mark.parametrize(
    "args",
    [
        ("list", "scenarios", "--format", "json"),
        ("list", "checks"),
        ("run", "refund.scenario.yaml", "--format", "json", "--no-history"),
        ("--version",),
    ],
)
def test_a_closed_pipe_ends_quietly_with_exit_0(workspace: Path, args: tuple[str, ...]) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before a byte is written (`| head -0`)
    try:
        done = subprocess.run(
            [*CLI, *args], cwd=workspace, stdout=write, stderr=subprocess.PIPE, timeout=120
        )
    finally:
        os.close(write)
    stderr = done.stderr.decode()
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
    assert done.returncode == 0, stderr


def test_max_cost_is_in_dollars(workspace: Path) -> None:
    help_text = cli(workspace, "run", "--help").stdout
    assert "--max-cost DOLLARS" in help_text
    assert "SECONDS" not in help_text.split("--max-cost", 1)[1].split("\n", 1)[0]
    bad = cli(workspace, "run", ".", "--max-cost", "lots")
    assert bad.returncode == 2 and "number of dollars" in bad.stderr


def test_one_rendering_of_a_cost() -> None:
    unpriced = Usage(requests=3, unpriced=3)
    priced = Usage(requests=2, cost_usd=0.0123)
    assert format_cost(None) == "$?" and format_cost(0.0123) == "$0.0123"
    assert unpriced.known_cost is None and cost_of(unpriced) is None
    assert cost_of(None) == 0.0 and cost_of(priced) == 0.0123
    assert "$?" in unpriced.describe() and "$0.0123" in priced.describe()
    summary = RunSummary(
        id="r1",
        started="2026-01-01T00:00:00+00:00",
        source="cli",
        git_commit=None,
        git_dirty=False,
        target=None,
        total=1,
        passed=1,
        failed=0,
        errored=0,
        skipped=0,
        pass_rate=1.0,
        cost_usd=None,
        duration_s=1.0,
    )
    assert "$?" in history_text([summary]) and "$0.0000" not in history_text([summary])
    page = render_report({"scenarios": [], "usage": unpriced.model_dump()})
    assert '"cost":"$?"' in page or "$?" in page


def test_an_unpriced_model_shows_dollar_question_in_run_and_history(workspace: Path) -> None:
    (workspace / "judged.scenario.yaml").write_text(
        "name: judged\ntarget: python:agent:answer\nsteps:\n"
        "  - interacts: [{inputs: What is your refund policy?}]\n"
        "    checks: [{kind: conformity, rule: The answer is polite.}]\n",
        encoding="utf-8",
    )
    with running_stub() as stub:
        stub.chat = lambda body: stub.verdict(True, "polite")
        env = {
            "CHECKSPEC_MODEL": "openai/no-such-priced-model",
            "CHECKSPEC_API_BASE": stub.base_url,
            "CHECKSPEC_API_KEY": "sk-test",
        }
        ran = cli(workspace, "run", "judged.scenario.yaml", "--no-cache", **env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "$?" in ran.stdout + ran.stderr
    listed = cli(workspace, "history")
    assert "$?" in listed.stdout and "$0.0000" not in listed.stdout, listed.stdout
    as_json = json.loads(cli(workspace, "history", "--format", "json").stdout)
    runs = as_json if isinstance(as_json, list) else as_json.get("runs", as_json)
    assert runs[0]["cost_usd"] is None


@pytest.mark.parametrize(
    "args",
    [
        ("run", "refund.scenario.yaml", "--no-cache"),  # history (and lastfailed)
        ("run", "refund.scenario.yaml", "--no-history", "--no-cache"),  # lastfailed only
        ("run", "refund.scenario.yaml", "--no-history"),  # the verdict cache
        ("history",),
    ],
)
def test_every_writer_of_the_state_folder_writes_its_gitignore(
    workspace: Path, args: tuple[str, ...]
) -> None:
    done = cli(workspace, *args)
    assert done.returncode in (0, 1), done.stderr
    state = workspace / ".checkspec"
    if state.exists():
        assert (state / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"


def test_the_state_folder_helper_writes_the_gitignore_below_it(tmp_path: Path) -> None:
    from checkspec.engine.core.state_folder import make_state_folder

    made = make_state_folder(tmp_path / ".checkspec" / "cache")
    assert made.is_dir()
    assert (tmp_path / ".checkspec" / ".gitignore").read_text(encoding="utf-8").endswith("*\n")
    elsewhere = make_state_folder(tmp_path / "mine" / "cache")
    assert elsewhere.is_dir() and not (tmp_path / "mine" / ".gitignore").exists()
