"""The persistent verdict cache: judge answers and embeddings kept between runs.

An LLM-judged suite that has not changed should cost nothing the second time. Answers
are keyed by a hash of everything that decides them (call kind, model, endpoint,
temperature, the rendered prompt or the input texts, and this cache's format version;
a changed prompt template renders a different prompt) and stored in one SQLite file
(`.checkspec/cache/verdicts.sqlite` at the workspace root by default): safe with many
worker processes writing at once (WAL, retries on a busy database), bounded in size
with least-recently-used eviction. Only answers that were accepted are stored, never
provider errors.

A file that is not a readable database (truncated, overwritten, a disk error) is moved
aside as `verdicts.sqlite.corrupt-<time>` and a new cache starts: the run's owner checks
it before the run (`repair`, whose warning it shows); a worker that meets a corruption
mid-run does the same, under a lock so that concurrent workers move it aside only once.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..catalog import SETTINGS_BY_NAME
from ..core.state_folder import make_state_folder
from . import snapshot

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

FORMAT_VERSION = 1
FILE_NAME = "verdicts.sqlite"
DEFAULT_MAX_MB: float = SETTINGS_BY_NAME["cache_max_mb"].default


@dataclass(frozen=True)
class CacheConfig:
    folder: Path | None = None  # None: no persistent cache
    max_mb: float = DEFAULT_MAX_MB


_connections: dict[tuple[int, Path], sqlite3.Connection] = {}
# The file each connection opened, as (device, inode): a connection that meets damage
# moves the file aside only while that same file is still the one at the path; another
# connection may have moved it and started a new cache there already.
_opened_as: dict[sqlite3.Connection, tuple[int, int]] = {}
_lock = threading.Lock()


def configure(folder: Path | str | None, max_mb: float = DEFAULT_MAX_MB) -> None:
    """Use this folder for the cache (None: none) where no run is in progress (library
    use, set by user code): recorded in the snapshot's CodeDefaults (snapshot.py). A run's
    cache is its settings'."""
    snapshot.set_code_defaults(cache_dir=str(folder) if folder else None, cache_max_mb=max_mb)


def _current() -> CacheConfig:
    """The snapshot's cache: a run's (its settings), else the one `configure` set."""
    settings = snapshot.effective()
    folder = Path(settings.cache_dir) if settings.cache_dir else None
    return CacheConfig(folder, settings.cache_max_mb)


def key_of(*parts: Any) -> str:
    text = json.dumps([FORMAT_VERSION, *parts], sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def get(key: str) -> Any | None:
    """The stored answer, or None (no cache, a miss, an unreadable database)."""
    db = _db()
    if db is None:
        return None
    try:
        row = db.execute("SELECT value FROM verdicts WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        db.execute("UPDATE verdicts SET used = ? WHERE key = ?", (time.time(), key))
        return json.loads(row[0])
    except sqlite3.DatabaseError as exc:
        _corrupted(db, exc)
        return None
    except (sqlite3.Error, ValueError):
        return None


def put(key: str, value: Any) -> None:
    db = _db()
    if db is None:
        return
    text = json.dumps(value, ensure_ascii=False)
    try:
        db.execute(
            "INSERT OR REPLACE INTO verdicts (key, value, size, used) VALUES (?, ?, ?, ?)",
            (key, text, len(text.encode("utf-8")), time.time()),
        )
        _evict(db)
    except sqlite3.DatabaseError as exc:
        _corrupted(db, exc)
    except sqlite3.Error:  # a full disk or a locked database: the run goes on uncached
        pass


def _evict(db: sqlite3.Connection) -> None:
    limit = int(_current().max_mb * 1_000_000)
    (total,) = db.execute("SELECT COALESCE(SUM(size), 0) FROM verdicts").fetchone()
    if total <= limit:
        return
    # Down to 90% of the limit, least recently used first, so eviction is not per insert.
    excess, doomed = total - int(limit * 0.9), []
    for key, size in db.execute("SELECT key, size FROM verdicts ORDER BY used"):
        doomed.append((key,))
        excess -= size
        if excess <= 0:
            break
    db.executemany("DELETE FROM verdicts WHERE key = ?", doomed)


def _db() -> sqlite3.Connection | None:
    folder = _current().folder
    if folder is None:
        return None
    # One connection per thread and folder: sqlite3 connections are not shared.
    slot = (threading.get_ident(), folder)
    with _lock:
        db = _connections.get(slot)
        if db is not None:
            return db
        try:
            make_state_folder(folder)  # .checkspec/cache: .checkspec/ gets its .gitignore
            db = _open(folder / FILE_NAME)
        except sqlite3.DatabaseError:  # not a database: aside, and a new one
            repair(folder)
            try:
                db = _open(folder / FILE_NAME)
            except (OSError, sqlite3.Error):
                return None
        except (OSError, sqlite3.Error):
            return None
        _connections[slot] = db
        with contextlib.suppress(OSError):
            _opened_as[db] = _identity(folder / FILE_NAME)
        return db


def _identity(path: Path) -> tuple[int, int]:
    status = path.stat()
    return status.st_dev, status.st_ino


def _open(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS verdicts ("
            " key TEXT PRIMARY KEY, value TEXT NOT NULL, size INTEGER NOT NULL,"
            " used REAL NOT NULL)"
        )
        db.execute("CREATE INDEX IF NOT EXISTS verdicts_used ON verdicts (used)")
        db.execute("SELECT key FROM verdicts LIMIT 1").fetchall()
    except BaseException:
        db.close()
        raise
    return db


def _corrupted(db: sqlite3.Connection, exc: sqlite3.DatabaseError) -> None:
    """A query met a corrupt database ("database disk image is malformed"): forget the
    connection, move the file aside; the next call opens a new one."""
    if "malformed" not in str(exc) and "not a database" not in str(exc):
        return  # "database is locked" and the like: the run goes on uncached
    with _lock:
        for slot, known in list(_connections.items()):
            if known is db:
                del _connections[slot]
        opened_as = _opened_as.pop(db, None)
    with contextlib.suppress(sqlite3.Error):
        db.close()
    folder = _current().folder
    if folder is not None:
        repair(folder, force=True, only=opened_as)


def repair(
    folder: Path | str, *, force: bool = False, only: tuple[int, int] | None = None
) -> str | None:
    """Check the cache file in `folder`; one that cannot be read as this cache is moved
    aside (`verdicts.sqlite.corrupt-<time>`) and the warning naming it returned (None:
    nothing to say). Concurrent callers move a file aside once: the file is checked again
    under a lock. `force`: a query found it corrupt already; `only`: the (device, inode)
    of the file it found corrupt, left alone if that file is no longer the one there."""
    folder = Path(folder)
    path = folder / FILE_NAME
    if not path.exists():
        return None
    try:
        with _file_lock(folder):
            if only is not None and _identity(path) != only:
                return None  # moved aside already; what is there now is a new cache
            if not force and _readable(path):
                return None
            aside = _aside_name(path)
            os.replace(path, aside)
            for suffix in ("-wal", "-shm"):  # the journal of the old file, not of the new
                with contextlib.suppress(OSError):
                    os.remove(f"{path}{suffix}")
    except OSError as exc:
        return f"warning: the verdict cache {path} cannot be read nor moved aside: {exc}"
    return (
        f"warning: the verdict cache {path} could not be read; moved to {aside.name}, starting anew"
    )


def _aside_name(path: Path) -> Path:
    """`verdicts.sqlite.corrupt-<time>`, with a counter if that name is taken: a file
    moved aside earlier in the same second is kept, not replaced."""
    stem = f"{FILE_NAME}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}"
    aside, number = path.with_name(stem), 1
    while aside.exists():
        number += 1
        aside = path.with_name(f"{stem}-{number}")
    return aside


def _readable(path: Path) -> bool:
    try:
        _open(path).close()
    except sqlite3.DatabaseError as exc:
        return "malformed" not in str(exc) and "not a database" not in str(exc)
    except (OSError, sqlite3.Error):
        return True  # locked, busy: not corrupt
    return True


@contextlib.contextmanager
def _file_lock(folder: Path) -> Iterator[None]:
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    with open(folder / f"{FILE_NAME}.lock", "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
