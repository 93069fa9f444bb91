"""The history and the last-failed record on a full disk and through links (issue 36):
only a database that fails `PRAGMA integrity_check` is set aside; an I/O error is said,
the run's result and exit code stand, no temporary file stays, the next run works on the
same database; links and folders in `.checkspec/` are refused, never written through."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from checkspec.engine.cli.selection import read_last_failed, write_last_failed
from checkspec.engine.history import store as history_store
from checkspec.engine.history.store import HistoryStore, save_run
from tests.support.history_payloads import payload

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
REAL_CONNECT = sqlite3.connect


class _FullDisk(sqlite3.Connection):
    """A connection on a disk with no room for the -wal and -shm files."""

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        raise sqlite3.OperationalError("disk I/O error")


def _full_disk_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
    if kwargs.get("uri"):  # the read-only integrity check needs no room
        return REAL_CONNECT(*args, **kwargs)
    return REAL_CONNECT(*args, **kwargs, factory=_FullDisk)


def test_a_full_disk_sets_nothing_aside_and_the_next_save_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = history_path = tmp_path / ".checkspec" / "history.db"
    assert save_run(payload("r1"), tmp_path, 10) == "r1"
    monkeypatch.setattr(history_store.sqlite3, "connect", _full_disk_connect)
    err = io.StringIO()
    for n in (2, 3):
        assert save_run(payload(f"r{n}"), tmp_path, 10, stderr=err) is None
    assert err.getvalue().count("the run was not kept") == 2
    assert "disk I/O error" in err.getvalue() and "moved it" not in err.getvalue()
    assert list(path.parent.glob("*.corrupt-*")) == []
    monkeypatch.setattr(history_store.sqlite3, "connect", REAL_CONNECT)
    assert save_run(payload("r4"), tmp_path, 10) == "r4"
    with HistoryStore(history_path) as store:
        assert [run.id for run in store.runs()] == ["r4", "r1"]


def test_a_database_failing_the_integrity_check_is_still_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    with HistoryStore(path) as store:
        store.save(payload("r1"))
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the schema page torn
    path.write_bytes(bytes(data))
    err = io.StringIO()
    with HistoryStore(path, stderr=err) as store:
        store.save(payload("r2"))
        assert [run.id for run in store.runs()] == ["r2"]
    assert "moved it to history.db.corrupt-" in err.getvalue()


def test_a_record_that_cannot_be_written_is_said_and_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_last_failed(tmp_path, [("a::x", True)])
    real_replace = os.replace

    def no_room(src: Any, dst: Any) -> None:
        if str(dst).endswith("lastfailed.json"):
            raise OSError(28, "No space left on device", str(dst))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", no_room)
    said = write_last_failed(tmp_path, [("a::y", True)])
    assert len(said) == 1 and "was not updated: No space left on device" in said[0]
    assert list((tmp_path / ".checkspec").glob(".lastfailed-*")) == []
    monkeypatch.setattr(os, "replace", real_replace)
    assert read_last_failed(tmp_path) == {"a::x"}
    assert write_last_failed(tmp_path, [("a::y", True)]) == []
    assert read_last_failed(tmp_path) == {"a::x", "a::y"}


AGENT = "def answer(question):\n    return 'nope'\n"
SUITE = textwrap.dedent(
    """\
    name: s
    scenarios:
      - name: one
        target: python:agent:answer
        steps:
          - interacts: [{inputs: hi}]
            checks: [{kind: string_matching, keyword: ok}]
    """
)
# The CLI in a process whose disk is full: SQLite cannot make its -wal file, and the
# last-failed record cannot be replaced.
FULL_DISK = """
import os, sqlite3, sys, runpy
real_connect, real_replace = sqlite3.connect, os.replace
class FullDisk(sqlite3.Connection):
    def execute(self, sql, *args):
        raise sqlite3.OperationalError("disk I/O error")
def connect(*args, **kwargs):
    if kwargs.get("uri"):
        return real_connect(*args, **kwargs)
    return real_connect(*args, **kwargs, factory=FullDisk)
def replace(src, dst):
    if str(dst).endswith("lastfailed.json"):
        raise OSError(28, "No space left on device", str(dst))
    real_replace(src, dst)
sqlite3.connect, os.replace = connect, replace
sys.argv = ["checkspec", *sys.argv[1:]]
runpy.run_module("checkspec.engine.cli.main", run_name="__main__")
"""


def _project(root: Path) -> Path:
    (root / "agent.py").write_text(AGENT)
    (root / "checkspec.yaml").write_text("history_max_runs: 5\n")
    (root / "s.suite.yaml").write_text(SUITE)
    return root


def _run(root: Path, *args: str, full: bool = False) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", FULL_DISK] if full else CLI
    return subprocess.run(
        [*command, *args], cwd=root, capture_output=True, text=True, timeout=120, check=False
    )


def test_a_run_on_a_full_disk_keeps_its_result_and_the_next_run_its_history(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    assert _run(root, "run", ".", "--format", "json").returncode == 1
    full = _run(root, "run", ".", "--format", "json", full=True)
    assert full.returncode == 1, full.stderr
    assert json.loads(full.stdout)["summary"]["fail"] == 1
    assert "the run was not kept" in full.stderr and "disk I/O error" in full.stderr
    assert "lastfailed.json was not updated: No space left on device" in full.stderr
    state = root / ".checkspec"
    assert list(state.glob("*.corrupt-*")) == [] and list(state.glob(".lastfailed-*")) == []
    assert _run(root, "run", ".", "--format", "json").returncode == 1
    listed = json.loads(_run(root, "history", "--format", "json").stdout)
    assert len(listed) == 2


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_a_history_db_link_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    (tmp_path / ".checkspec").mkdir()
    (tmp_path / ".checkspec" / "history.db").symlink_to(target)
    err = io.StringIO()
    assert save_run(payload("r1"), tmp_path, 10, stderr=err) is None
    assert "history.db is a link" in err.getvalue()
    assert target.read_text() == "keep me"


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_a_dangling_history_db_link_makes_no_database_outside(tmp_path: Path) -> None:
    (tmp_path / ".checkspec").mkdir()
    (tmp_path / ".checkspec" / "history.db").symlink_to(tmp_path / "outside.db")
    err = io.StringIO()
    assert save_run(payload("r1"), tmp_path, 10, stderr=err) is None
    assert "is a link" in err.getvalue()
    assert not (tmp_path / "outside.db").exists()


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_a_linked_state_folder_gets_nothing_written_into_its_target(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".checkspec").symlink_to(elsewhere)
    err = io.StringIO()
    assert save_run(payload("r1"), workspace, 10, stderr=err) is None
    said = write_last_failed(workspace, [("a::x", True)])
    assert ".checkspec is a link" in err.getvalue() and ".checkspec is a link" in said[0]
    assert list(elsewhere.iterdir()) == []


def test_a_history_db_that_is_a_folder_is_refused_with_what_to_do(tmp_path: Path) -> None:
    (tmp_path / ".checkspec" / "history.db").mkdir(parents=True)
    err = io.StringIO()
    assert save_run(payload("r1"), tmp_path, 10, stderr=err) is None
    assert "history.db is a folder; move it away" in err.getvalue()


def test_a_last_failed_record_that_cannot_be_read_is_left_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_last_failed(tmp_path, [("a::x", True)])
    record = tmp_path / ".checkspec" / "lastfailed.json"
    before = record.read_bytes()
    real_read = Path.read_bytes

    def io_error(self: Path) -> bytes:
        if self.name == "lastfailed.json":
            raise OSError(5, "Input/output error")
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", io_error)
    warnings: list[str] = []
    assert read_last_failed(tmp_path, warnings) == set()
    said = write_last_failed(tmp_path, [("a::y", True)])
    monkeypatch.setattr(Path, "read_bytes", real_read)
    assert "cannot be read (Input/output error); left as it is" in warnings[0]
    assert "not updated" in said[0]
    assert record.read_bytes() == before
    assert list(record.parent.glob("lastfailed.json.corrupt-*")) == []
