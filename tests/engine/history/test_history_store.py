"""The run history's store: SQLite in WAL mode, pruned, safe with writers at once, and a
database it cannot use moved aside without touching the run."""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from checkspec.engine.history.payload import ReportFormatError, load_report_file
from checkspec.engine.history.store import SCHEMA_VERSION, HistoryError, HistoryStore, save_run
from tests.support.history_payloads import payload
from tests.support.paths import REPO


def test_saved_runs_come_back_newest_first_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / ".checkspec" / "history.db"
    with HistoryStore(path) as store:
        store.save(payload("r1"))
        store.save(payload("r2", {"a.scenario.yaml::one": "fail"}))
        assert [r.id for r in store.runs()] == ["r2", "r1"]
        assert store.load("r1") == payload("r1")
        assert store.resolve("last")["run"]["id"] == "r2"
        assert store.resolve("last~1")["run"]["id"] == "r1"
        assert store.scenario_statuses("a.scenario.yaml::one") == [("r2", "fail"), ("r1", "pass")]
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    indexed = db.execute(
        "SELECT run_id, identity, status FROM scenarios ORDER BY run_id"
    ).fetchall()
    assert indexed == [
        ("r1", "a.scenario.yaml::one", "pass"),
        ("r2", "a.scenario.yaml::one", "fail"),
    ]
    assert (tmp_path / ".checkspec" / ".gitignore").is_file()


def test_unknown_refs_say_what_there_is(tmp_path: Path) -> None:
    with HistoryStore(tmp_path / "h.db") as store:
        with pytest.raises(HistoryError, match="no runs yet"):
            store.resolve("last")
        store.save(payload("20261202-1"))
        store.save(payload("20261202-2"))
        with pytest.raises(HistoryError, match=r"nope: no such run; recent runs: 20261202-2, 2"):
            store.resolve("nope")
        with pytest.raises(HistoryError, match="more than one run"):
            store.resolve("20261202")
        assert store.resolve("20261202-1")["run"]["id"] == "20261202-1"
        with pytest.raises(HistoryError, match="only 2 run"):
            store.resolve("last~5")


def test_prune_keeps_the_newest(tmp_path: Path) -> None:
    with HistoryStore(tmp_path / "h.db") as store:
        for n in range(6):
            store.save(payload(f"r{n}"), max_runs=4)
        assert [r.id for r in store.runs()] == ["r5", "r4", "r3", "r2"]
        with pytest.raises(HistoryError):
            store.load("r1")
    db = sqlite3.connect(tmp_path / "h.db")
    assert {row[0] for row in db.execute("SELECT run_id FROM scenarios")} == {
        "r2",
        "r3",
        "r4",
        "r5",
    }
    assert db.execute("SELECT count(*) FROM payloads").fetchone()[0] == 4


def test_a_corrupt_database_is_moved_aside_and_a_new_one_starts(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    path.write_bytes(b"this is not a database" * 100)
    err = io.StringIO()
    with HistoryStore(path, stderr=err) as store:
        store.save(payload("r1"))
        assert [r.id for r in store.runs()] == ["r1"]
    message = err.getvalue()
    assert message.count("\n") == 1 and "moved it to history.db.corrupt-" in message
    (aside,) = tmp_path.glob("history.db.corrupt-*")
    assert aside.read_bytes().startswith(b"this is not a database")


def test_a_database_of_another_schema_version_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE runs (x)")
    db.execute("PRAGMA user_version=99")
    db.commit()
    db.close()
    err = io.StringIO()
    with HistoryStore(path, stderr=err) as store:
        store.save(payload("r1"))
    assert "schema version is 99" in err.getvalue()
    assert len(list(tmp_path.glob("history.db.corrupt-*"))) == 1
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_save_run_never_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")  # the workspace root is a file: no .checkspec folder can be made
    err = io.StringIO()
    assert save_run(payload("r1"), blocker, 10, stderr=err) is None
    assert "the run was not kept" in err.getvalue()


WRITER = """
import sys
sys.path[:0] = {paths!r}
from tests.support.history_payloads import payload
from checkspec.engine.history.store import HistoryStore
path, who = sys.argv[1], sys.argv[2]
with HistoryStore(path) as store:
    for n in range(15):
        store.save(payload(f"{{who}}-{{n}}", {{f"f.scenario.yaml::s{{i}}": "pass" for i in range(50)}}),
                   max_runs=1000)
"""


def test_concurrent_writers_in_subprocesses_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    script = tmp_path / "writer.py"
    script.write_text(textwrap.dedent(WRITER.format(paths=[str(REPO)])), encoding="utf-8")
    writers = [
        subprocess.Popen([sys.executable, str(script), str(path), f"w{k}"], stderr=subprocess.PIPE)
        for k in range(4)
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err.decode()
    with HistoryStore(path) as store:
        ids = {r.id for r in store.runs()}
    assert ids == {f"w{k}-{n}" for k in range(4) for n in range(15)}
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM scenarios").fetchone()[0] == 60 * 50


def test_report_files_of_another_format_are_refused(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(payload("r1")), encoding="utf-8")
    assert load_report_file(good)["run"]["id"] == "r1"
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**payload("r1"), "format": "checkspec-run/9"}), encoding="utf-8")
    with pytest.raises(ReportFormatError, match="format 'checkspec-run/9'; this checkspec reads"):
        load_report_file(other)
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"status": "pass", "scenarios": []}), encoding="utf-8")
    with pytest.raises(ReportFormatError, match="no format"):
        load_report_file(old)
    with HistoryStore(tmp_path / "h.db") as store:
        assert store.resolve(str(good))["run"]["id"] == "r1"
        with pytest.raises(ReportFormatError):
            store.resolve(str(other))
