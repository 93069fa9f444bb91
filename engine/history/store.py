"""The run history: `.checkspec/history.db` at the workspace root, SQLite in WAL mode.

```
runs       (seq, id, started, source, git_commit, git_dirty, target, total, passed, failed,
            errored, skipped, pass_rate, cost_usd, duration_s)      one row a run
payloads   (run_id, data)      the run's JSON report (payload.py), zlib-compressed JSON
scenarios  (run_id, identity, file, name, status, tags)   an index: history queries
                                                           without unpacking payloads
```

`HistoryStore(path)`: `save(payload) -> run_id`, `runs(limit) -> [RunSummary]` (newest
first), `load(run_id) -> payload`, `resolve(ref) -> payload` (a run id or a unique prefix
of one, `last`, `last~N`, or the path of a JSON report file), `prune(max_runs)` (`save`
prunes to `history_max_runs`). `HistoryError` (unknown run, no runs yet) carries the
message the CLI prints before exiting 2.

The schema's version is the database's `PRAGMA user_version`. A database of another
version, or one that opens and fails `PRAGMA integrity_check` (read-only, `immutable`: it
needs no room for -wal and -shm files), is moved aside (`history.db.corrupt-<timestamp>`,
with its -wal and -shm files) with a one-line message on stderr, and a new one starts.
Any other error (a full disk, "disk I/O error", no permission) sets nothing aside: it is
reported, and the next run with room uses the same database. Links and folders in
`.checkspec/` are refused (state.py).
Several runs may write at once: each write is one `BEGIN IMMEDIATE` transaction, and a
writer waits for another's lock (busy timeout) rather than failing. `save_run` is what
the front ends call: it never raises (a run's results and exit code do not depend on
its history), it says on stderr why a run was not kept.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
import time
import zlib
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from ..llm.snapshot import redactor
from .payload import ReportFormatError, load_report_file
from .state import check_file, make_folder

SCHEMA_VERSION = 1
DB_NAME = "history.db"
BUSY_TIMEOUT_S = 60.0  # several runs finishing at once wait for each other's writes

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    started TEXT NOT NULL,
    source TEXT NOT NULL,
    git_commit TEXT,
    git_dirty INTEGER,
    target TEXT,
    total INTEGER NOT NULL,
    passed INTEGER NOT NULL,
    failed INTEGER NOT NULL,
    errored INTEGER NOT NULL,
    skipped INTEGER NOT NULL,
    pass_rate REAL,
    cost_usd REAL,
    duration_s REAL
);
CREATE TABLE IF NOT EXISTS payloads (
    run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS scenarios (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    identity TEXT NOT NULL,
    file TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    tags TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS scenarios_run ON scenarios(run_id);
CREATE INDEX IF NOT EXISTS scenarios_identity ON scenarios(identity);
"""
_TABLES = ("runs", "payloads", "scenarios")
# Calibrations (engine/calibrate), beside the runs: made when the first is kept, so a
# history of schema 1 without it is still read as it is (no version change, nothing set
# aside); a checkspec that does not know the table leaves it alone.
_CALIBRATIONS = """
CREATE TABLE IF NOT EXISTS calibrations (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    started TEXT NOT NULL,
    judges TEXT NOT NULL,
    data BLOB NOT NULL
)
"""
# The numbers of a judge the calibrations table keeps readable without unpacking.
_JUDGE_NUMBERS = frozenset(
    ("judge", "check", "model", "prompt", "n", "agreement", "kappa", "precision", "recall")
) | {"consistency", "errors", "cost_usd", "confusion"}


class HistoryError(Exception):
    """What the history cannot give (an unknown run, no runs yet); the message says why."""


@dataclass(frozen=True)
class RunSummary:
    """A run as `checkspec history` lists it."""

    id: str
    started: str
    source: str
    git_commit: str | None
    git_dirty: bool | None
    target: str | None
    total: int
    passed: int
    failed: int
    errored: int
    skipped: int
    pass_rate: float | None
    cost_usd: float | None
    duration_s: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "started": self.started,
            "source": self.source,
            "git": None
            if self.git_commit is None
            else {"commit": self.git_commit, "dirty": bool(self.git_dirty)},
            "target": self.target,
            "counts": {
                "pass": self.passed,
                "fail": self.failed,
                "error": self.errored,
                "skip": self.skipped,
                "total": self.total,
            },
            "pass_rate": self.pass_rate,
            "cost_usd": self.cost_usd,
            "duration_s": self.duration_s,
        }


def history_path(root: Path | None) -> Path:
    """`.checkspec/history.db` at the workspace root (where checkspec.yaml is), else here."""
    return (root or Path.cwd()) / ".checkspec" / DB_NAME


class HistoryStore:
    """The history database at `path` (created, or moved aside and started again, when
    first used; `stderr` gets the one-line message of a database moved aside)."""

    def __init__(self, path: str | Path, stderr: TextIO | None = None) -> None:
        self.path = Path(path)
        self._stderr = stderr
        self._db: sqlite3.Connection | None = None

    # -- opening ------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        make_folder(self.path.parent)
        for suffix in ("", "-wal", "-shm", "-journal"):
            check_file(self.path.with_name(self.path.name + suffix))
        for attempt in range(3):
            try:
                return self._open_once()
            except _Unusable as why:
                if attempt == 2:
                    raise sqlite3.DatabaseError(str(why)) from None
                self._move_aside(str(why))
        raise AssertionError("unreachable")  # pragma: no cover

    def _open_once(self) -> sqlite3.Connection:
        db = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA synchronous=NORMAL")  # WAL: durable at checkpoints, never torn
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION:
                return db
            db.execute("BEGIN IMMEDIATE")  # one creator: the others wait, then see it made
            try:
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version == 0:
                    tables = {
                        row[0]
                        for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")
                    }
                    if tables - {"sqlite_sequence"}:
                        raise _Unusable("it holds tables but no schema version")
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            db.execute(statement)
                    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                    db.execute("COMMIT")
                    return db
                if version != SCHEMA_VERSION:
                    raise _Unusable(
                        f"its schema version is {version}, this checkspec writes {SCHEMA_VERSION}"
                    )
                db.execute("COMMIT")
                return db
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.DatabaseError as exc:
            db.close()
            if isinstance(exc, sqlite3.OperationalError) and _is_busy(exc):
                raise
            if _fails_integrity(self.path):
                raise _Unusable(f"SQLite cannot read it ({exc})") from None
            raise  # a full disk, an I/O error: the file is intact, nothing is set aside
        except BaseException:
            db.close()
            raise

    def _move_aside(self, why: str) -> None:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
        try:
            self.path.replace(aside)
        except FileNotFoundError:  # another run moved it first
            return
        for suffix in ("-wal", "-shm"):
            extra = self.path.with_name(self.path.name + suffix)
            with suppress(OSError):
                extra.replace(aside.with_name(aside.name + suffix))
        print(
            f"checkspec: {self.path}: {why}; moved it to {aside.name}, a new history starts",
            file=self._stderr or sys.stderr,
        )

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> HistoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            with suppress(sqlite3.Error):  # a full disk may fail the rollback too
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # -- writing ------------------------------------------------------------------------

    def save(self, payload: Mapping[str, Any], max_runs: int | None = None) -> str:
        """Keep the run (a payload.py dict); prune to `max_runs` when given. Its run id."""
        run = payload.get("run") or {}
        run_id = str(run.get("id") or "")
        if not run_id:
            raise ValueError("the payload has no run id")
        counts = run.get("counts") or payload.get("summary") or {}
        git = run.get("git") or {}
        # No secret an endpoint echoed or an output printed is kept (core/redact.py): the
        # record masked as the text it is stored as (masks are plain characters, so the
        # JSON stays JSON; a pass over the text costs a fraction of dumping it).
        redact = redactor().text
        data = zlib.compress(redact(json.dumps(payload, ensure_ascii=False)).encode("utf-8"), 1)
        rows = [
            (
                run_id,
                redact(str(s.get("id") or "")),  # as in the record: the same identity
                redact(str(s.get("file") or "")),
                redact(str(s.get("scenario_name") or "")),
                str(s.get("status") or ""),
                redact(json.dumps(s.get("tags") or [])),
            )
            for s in payload.get("scenarios") or []
        ]
        with self._write() as db:
            db.execute(
                "INSERT INTO runs (id, started, source, git_commit, git_dirty, target, total, "
                "passed, failed, errored, skipped, pass_rate, cost_usd, duration_s) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    str(run.get("started") or ""),
                    str(run.get("source") or "cli"),
                    git.get("commit"),
                    None if not git else int(bool(git.get("dirty"))),
                    run.get("target"),
                    int(counts.get("total", len(rows))),
                    int(counts.get("pass", 0)),
                    int(counts.get("fail", 0)),
                    int(counts.get("error", 0)),
                    int(counts.get("skip", 0)),
                    run.get("pass_rate"),
                    run.get("cost_usd"),
                    run.get("duration_s", payload.get("duration_s")),
                ),
            )
            db.execute("INSERT INTO payloads (run_id, data) VALUES (?, ?)", (run_id, data))
            db.executemany("INSERT INTO scenarios VALUES (?, ?, ?, ?, ?, ?)", rows)
            if max_runs is not None:
                self._prune(db, max_runs)
        return run_id

    def prune(self, max_runs: int) -> int:
        """Keep the newest `max_runs` runs; how many went."""
        with self._write() as db:
            return self._prune(db, max_runs)

    @staticmethod
    def _prune(db: sqlite3.Connection, max_runs: int) -> int:
        old = [
            row[0]
            for row in db.execute(
                "SELECT id FROM runs ORDER BY seq DESC LIMIT -1 OFFSET ?", (max(max_runs, 0),)
            )
        ]
        for run_id in old:
            db.execute("DELETE FROM scenarios WHERE run_id = ?", (run_id,))
            db.execute("DELETE FROM payloads WHERE run_id = ?", (run_id,))
            db.execute("DELETE FROM runs WHERE id = ?", (run_id,))
        return len(old)

    # -- calibrations (`checkspec calibrate`) -------------------------------------------

    def save_calibration(self, calibration: Mapping[str, Any], max_kept: int | None = None) -> str:
        """Keep a calibration (engine/calibrate's JSON, `checkspec-calibration/1`) beside
        the runs: its judges' numbers, and the whole of it compressed. Its id."""
        meta = calibration.get("calibration") or {}
        calibration_id = str(meta.get("id") or "")
        if not calibration_id:
            raise ValueError("the calibration has no id")
        judges = [
            {k: v for k, v in judge.items() if k in _JUDGE_NUMBERS}
            for judge in calibration.get("judges") or []
        ]
        # Its judges' errors may echo a key (core/redact.py; a run's payload is masked when
        # built, history/payload.py). Masks are plain characters: the JSON stays JSON.
        text = redactor().text(json.dumps(calibration, ensure_ascii=False))
        data = zlib.compress(text.encode("utf-8"), 1)
        with self._write() as db:
            db.execute(_CALIBRATIONS)
            db.execute(
                "INSERT INTO calibrations (id, started, judges, data) VALUES (?, ?, ?, ?)",
                (calibration_id, str(meta.get("started") or ""), json.dumps(judges), data),
            )
            if max_kept is not None:
                db.execute(
                    "DELETE FROM calibrations WHERE seq IN (SELECT seq FROM calibrations "
                    "ORDER BY seq DESC LIMIT -1 OFFSET ?)",
                    (max(max_kept, 0),),
                )
        return calibration_id

    def calibrations(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The calibrations kept, newest first: {"id", "started", "judges": [numbers]}."""
        db = self._connection()
        exists = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='calibrations'"
        ).fetchone()
        if not exists:
            return []
        rows = db.execute(
            "SELECT id, started, judges FROM calibrations ORDER BY seq DESC LIMIT ?",
            (-1 if limit is None else limit,),
        ).fetchall()
        return [{"id": row[0], "started": row[1], "judges": json.loads(row[2])} for row in rows]

    def load_calibration(self, calibration_id: str) -> dict[str, Any]:
        row = (
            self._connection()
            .execute("SELECT data FROM calibrations WHERE id = ?", (calibration_id,))
            .fetchone()
        )
        if row is None:
            raise HistoryError(f"no calibration {calibration_id!r} in {self.path}")
        loaded: dict[str, Any] = json.loads(zlib.decompress(row[0]).decode("utf-8"))
        return loaded

    # -- reading ------------------------------------------------------------------------

    def runs(self, limit: int | None = None) -> list[RunSummary]:
        """The runs, newest first."""
        query = (
            "SELECT id, started, source, git_commit, git_dirty, target, total, passed, failed, "
            "errored, skipped, pass_rate, cost_usd, duration_s FROM runs ORDER BY seq DESC"
        )
        rows = self._connection().execute(query + " LIMIT ?", (limit if limit is not None else -1,))
        return [_summary(row) for row in rows]

    def load(self, run_id: str) -> dict[str, Any]:
        row = (
            self._connection()
            .execute("SELECT data FROM payloads WHERE run_id = ?", (run_id,))
            .fetchone()
        )
        if row is None:
            raise HistoryError(self._unknown(run_id))
        payload: dict[str, Any] = json.loads(zlib.decompress(row[0]))
        return payload

    def scenario_statuses(self, identity: str, limit: int = 20) -> list[tuple[str, str]]:
        """(run id, status) of one scenario in the latest runs that had it, newest first."""
        rows = self._connection().execute(
            "SELECT s.run_id, s.status FROM scenarios s JOIN runs r ON r.id = s.run_id "
            "WHERE s.identity = ? ORDER BY r.seq DESC LIMIT ?",
            (identity, limit),
        )
        return [(row[0], row[1]) for row in rows]

    def resolve(self, ref: str) -> dict[str, Any]:
        """The payload `ref` names: a run id (or a unique prefix), `last`, `last~N`, or a
        JSON report file. HistoryError / ReportFormatError say why not."""
        back = _LAST.fullmatch(ref)
        if back is None and (ref.endswith(".json") or Path(ref).is_file()):
            return load_report_file(ref)
        if back is not None:
            n = int(back.group(1) or 0)
            if not self.path.exists():
                raise HistoryError(f"no runs yet in {self.path}: run `checkspec run` first")
            found = self._connection().execute(
                "SELECT id FROM runs ORDER BY seq DESC LIMIT 1 OFFSET ?", (n,)
            )
            row = found.fetchone()
            if row is None:
                count = self._connection().execute("SELECT count(*) FROM runs").fetchone()[0]
                if not count:
                    raise HistoryError(f"no runs yet in {self.path}: run `checkspec run` first")
                raise HistoryError(f"{ref}: the history holds only {count} run(s)")
            return self.load(row[0])
        if not self.path.exists():
            raise HistoryError(f"{ref}: no such run (no runs yet in {self.path})")
        matches = [
            row[0]
            for row in self._connection().execute(
                "SELECT id FROM runs WHERE id >= ? AND id < ? ORDER BY seq DESC LIMIT 2",
                (ref, ref + "\uffff"),
            )
        ]
        if len(matches) == 1:
            return self.load(matches[0])
        if len(matches) > 1:
            raise HistoryError(f"{ref}: more than one run starts so; give more of its id")
        raise HistoryError(self._unknown(ref))

    def _unknown(self, ref: str) -> str:
        recent = [run.id for run in self.runs(5)]
        listed = ", ".join(recent) if recent else "none yet"
        return f"{ref}: no such run; recent runs: {listed} (or last, last~N, a JSON report)"


def _summary(row: tuple[Any, ...]) -> RunSummary:
    (run_id, started, source, commit, dirty, target, total, passed, failed) = row[:9]
    errored, skipped, pass_rate, cost_usd, duration_s = row[9:]
    return RunSummary(
        id=run_id,
        started=started,
        source=source,
        git_commit=commit,
        git_dirty=None if dirty is None else bool(dirty),
        target=target,
        total=total,
        passed=passed,
        failed=failed,
        errored=errored,
        skipped=skipped,
        pass_rate=pass_rate,
        cost_usd=cost_usd,
        duration_s=duration_s,
    )


_LAST = re.compile(r"last(?:~(\d+))?")


class _Unusable(Exception):
    """The database cannot be used as a history (why)."""


def _fails_integrity(path: Path) -> bool:
    """Whether the file at `path` is a database SQLite cannot read: it opens (read-only,
    immutable: no -wal or -shm is made) and fails `PRAGMA integrity_check`, or is not a
    database at all. An I/O error in the check says nothing about the file: False."""
    if not path.is_file():
        return False
    try:
        uri = path.resolve().as_uri() + "?mode=ro&immutable=1"
        with closing(sqlite3.connect(uri, uri=True)) as db:
            row = db.execute("PRAGMA integrity_check").fetchone()
    except sqlite3.OperationalError:
        return False
    except sqlite3.DatabaseError:  # "file is not a database", "malformed"
        return True
    return not row or row[0] != "ok"


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def save_run(
    payload: Mapping[str, Any],
    root: Path | None,
    max_runs: int,
    stderr: TextIO | None = None,
) -> str | None:
    """Keep a run in the workspace's history; never raises. Its run id, None when the
    history could not take it (said on stderr in one line)."""
    out = stderr or sys.stderr
    path = history_path(root)
    started = time.perf_counter()
    try:
        with closing(HistoryStore(path, stderr=out)) as store:
            return store.save(payload, max_runs=max_runs)
    except Exception as exc:
        waited = time.perf_counter() - started
        print(
            f"checkspec: the run was not kept in {path}: {exc} ({waited:.1f}s)",
            file=out,
        )
        return None


__all__ = [
    "BUSY_TIMEOUT_S",
    "DB_NAME",
    "SCHEMA_VERSION",
    "HistoryError",
    "HistoryStore",
    "ReportFormatError",
    "RunSummary",
    "history_path",
    "save_run",
]
