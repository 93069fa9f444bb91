"""Where `-o` writes, and what a write that fails says (issue 47 item 4, issue 48 item 4):
an OS error names the path and the part of it at fault, a link inside the workspace is
written at its target (the link stays), a stream (`/dev/stdout`) is written in place, and
the report is checked before a run starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import Done, run_main
from tests.support.history_payloads import payload

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]

DATASET = """\
name: faq
scenarios:
  - name: one
    interactions:
      - input: hello
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "checkspec.yaml").write_text("jobs: 1\n")
    (tmp_path / "agent.py").write_text("def answer(q):\n    return q\n")
    (tmp_path / "run.json").write_text(json.dumps(payload("r1")))
    (tmp_path / "faq.dataset.yaml").write_text(DATASET)
    return tmp_path


def cli(root: Path, *args: str) -> Done:
    return run_main(root, *args)


@pytest.mark.parametrize(
    "command",
    [
        ["report", "run.json", "-o", "agent.py/r.html"],
        ["compare", "run.json", "run.json", "-o", "agent.py/r.html"],
        ["hub", "export", "faq.dataset.yaml", "-o", "agent.py/x.jsonl"],
        ["merge", "run.json", "-o", "agent.py/r.html"],
    ],
    ids=lambda c: c[0],
)
def test_a_file_where_a_folder_goes_is_named(workspace: Path, command: list[str]) -> None:
    done = cli(workspace, *command)
    assert done.returncode == 2
    out = command[-1]
    assert f"{out}: agent.py is a file, not a folder" in done.stderr, done.stderr
    assert "File exists" not in done.stderr and "Not a directory" not in done.stderr


def test_a_folder_as_the_output_is_named(workspace: Path) -> None:
    (workspace / "out").mkdir()
    done = cli(workspace, "report", "run.json", "-o", "out")
    assert done.returncode == 2
    assert "error: cannot write out: it is a folder" in done.stderr


def test_a_link_inside_the_workspace_is_written_at_its_target(workspace: Path) -> None:
    (workspace / "pages").mkdir()
    (workspace / "latest.html").symlink_to(workspace / "pages" / "r1.html")
    (workspace / "pages" / "r1.html").write_text("old")
    done = cli(workspace, "report", "run.json", "-o", "latest.html")
    assert done.returncode == 0, done.stderr
    assert (workspace / "latest.html").is_symlink()
    assert (workspace / "pages" / "r1.html").read_text().lstrip().startswith("<!doctype html")


def test_a_read_only_report_is_refused_with_its_mode(workspace: Path) -> None:
    frozen = workspace / "frozen.html"
    frozen.write_text("kept")
    frozen.chmod(0o444)
    done = cli(workspace, "report", "run.json", "-o", "frozen.html")
    assert done.returncode == 2
    assert "cannot write frozen.html: it is read-only (mode 0444)" in done.stderr
    assert frozen.read_text() == "kept"


def test_a_new_report_gets_the_umask_mode_and_a_kept_one_its_mode(workspace: Path) -> None:
    assert cli(workspace, "report", "run.json", "-o", "new.html").returncode == 0
    mask = os.umask(0)
    os.umask(mask)
    assert (workspace / "new.html").stat().st_mode & 0o777 == 0o666 & ~mask
    (workspace / "new.html").chmod(0o600)
    assert cli(workspace, "report", "run.json", "-o", "new.html").returncode == 0
    assert (workspace / "new.html").stat().st_mode & 0o777 == 0o600


def test_a_stream_is_written_in_place(workspace: Path) -> None:
    # /dev/stdout is a link out of every workspace, named outside it: the user's stream.
    done = subprocess.run(
        [*CLI, "report", "run.json", "--format", "json", "-o", "/dev/stdout"],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["run"]["id"] == "r1"
    assert cli(workspace, "report", "run.json", "-o", "/dev/null").returncode == 0
    assert Path("/dev/null").is_char_device()
