"""`checkspec hub import` on sources too big to hold (issue 48 item 6): a 2 GB line, or a
2 GB JSON list, was read whole (a MemoryError traceback at 2.1 GB). Now a row is read up
to the limit of one scenario (`max_file_size`) and refused past it, naming the file and
line, whatever follows. The sources here never end: a pipe fed without end by a thread,
so that a reader that reads the whole line or the whole list never returns (the test's
timeout says so) instead of costing gigabytes. Real processes of the CLI."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]

ROW = {
    "name": "a",
    "interactions": [{"input": "hello", "checks": [{"check_id": "equals", "spec": {}}]}],
}


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=60, env=dict(os.environ)
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "checkspec.yaml").write_text("max_file_size: 100000\n")
    return tmp_path


@contextlib.contextmanager
def _endless(path: Path, head: str, filler: str) -> Iterator[Path]:
    """A pipe at `path` giving `head`, then `filler` again and again until the reader
    goes away."""
    os.mkfifo(path)
    done = threading.Event()

    def feed() -> None:
        try:
            with path.open("w", encoding="utf-8") as pipe:
                pipe.write(head)
                while not done.is_set():
                    pipe.write(filler * 1000)
        except (BrokenPipeError, OSError):
            pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        yield path
    finally:
        done.set()
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))  # a feeder waiting in open goes
        feeder.join(timeout=10)


@pytest.fixture
def endless_line(workspace: Path) -> Iterator[Path]:
    source = workspace / "endless.jsonl"
    first = json.dumps(ROW) + "\n"
    with _endless(source, first + '{"name": "', "x" * 1000):
        yield source


@pytest.fixture
def endless_list(workspace: Path) -> Iterator[Path]:
    source = workspace / "endless.json"
    head = "[\n" + json.dumps(ROW) + ",\n" + json.dumps(ROW) + ',\n{"name": "'
    with _endless(source, head, "y" * 1000):
        yield source


@pytest.mark.parametrize("to", ["d.dataset.jsonl", "d.dataset.yaml"])
def test_an_endless_line_is_refused_at_the_limit(
    workspace: Path, endless_line: Path, to: str
) -> None:
    done = cli(workspace, "hub", "import", endless_line.name, "--to", to)
    assert done.returncode == 2
    assert (
        "error: endless.jsonl:2: scenario 2: longer than 100,000 characters, the limit of one "
        "scenario (setting max_file_size in checkspec.yaml); nothing was written"
    ) in done.stderr
    assert sorted(p.name for p in workspace.iterdir()) == ["checkspec.yaml", "endless.jsonl"]


def test_an_endless_list_item_is_refused_at_the_limit(workspace: Path, endless_list: Path) -> None:
    done = cli(workspace, "hub", "import", endless_list.name, "--to", "d.dataset.jsonl")
    assert done.returncode == 2
    assert "error: endless.json:4: scenario 3: longer than 100,000 characters" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (workspace / "d.dataset.jsonl").exists()


def test_a_long_row_in_a_file_is_named_at_its_line(workspace: Path) -> None:
    long_row = {**ROW, "description": "z" * 200_000}
    rows = [ROW, ROW, long_row, ROW]
    (workspace / "hub.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (workspace / "hub.json").write_text(json.dumps(rows, indent=1))
    lines = cli(workspace, "hub", "import", "hub.jsonl", "--to", "a.dataset.yaml")
    assert lines.returncode == 2
    assert "error: hub.jsonl:3: scenario 3: longer than 100,000 characters" in lines.stderr
    listed = cli(workspace, "hub", "import", "hub.json", "--to", "b.dataset.yaml")
    assert listed.returncode == 2
    line = 2 + 2 * len(json.dumps(ROW, indent=1).splitlines())  # where the third item starts
    assert f"error: hub.json:{line}: scenario 3: longer than 100,000" in listed.stderr


def test_a_row_nested_past_the_row_limit_is_named(workspace: Path) -> None:
    deep = {**ROW, "annotations": {"x": json.loads("[" * 300 + "]" * 300)}}
    (workspace / "hub.jsonl").write_text(json.dumps(ROW) + "\n" + json.dumps(deep) + "\n")
    done = cli(workspace, "hub", "import", "hub.jsonl", "--to", "a.dataset.jsonl")
    assert done.returncode == 2
    assert "error: hub.jsonl:2: scenario 2: nested deeper than 200 levels" in done.stderr


def test_a_list_that_is_not_json_is_named_at_its_line(workspace: Path) -> None:
    (workspace / "hub.json").write_text("[\n" + json.dumps(ROW) + ",\n{oops}\n]\n")
    done = cli(workspace, "hub", "import", "hub.json", "--to", "a.dataset.jsonl")
    assert done.returncode == 2
    assert "error: hub.json:3: not JSON or JSON Lines: Expecting property name" in done.stderr
