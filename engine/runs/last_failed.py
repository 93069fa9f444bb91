"""The last run's failures, kept for `--last-failed` and `--status failed` selections.

The failing and erroring scenarios of the last run are kept in `.checkspec/lastfailed.json`
at the workspace root (as pytest keeps its own), updated after every run by the run session
(engine/runs/session.py `RunSession.keep`), so a run from the CLI, the pytest plugin or the
editor writes it alike; updated under a lock (concurrent runs lose no update); a record
that cannot be read is moved aside (`lastfailed.json.corrupt-<time>`) with a warning, and a
new one starts. A record that cannot be written (a full disk, a read-only checkout, a link
in `.checkspec/`) is reported and left as it was: no temporary file stays behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

from ..core.state_folder import STATE_FOLDER

LAST_FAILED = "lastfailed.json"
LOCK = "lastfailed.lock"


def state_folder(root: Path | None) -> Path:
    return (root or Path.cwd()) / STATE_FOLDER


class _Unreadable(Exception):
    """The record exists but is not one (truncated, not JSON, not its shape)."""


class _NotRead(Exception):
    """The record could not be read (an I/O error, no permission): it may be intact, so
    it is left where it is."""


def _parse(path: Path) -> set[str]:
    """The record's identities; none when it does not exist."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return set()
    except OSError as exc:
        raise _NotRead(exc.strerror or str(exc)) from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError as exc:
        raise _Unreadable(f"not JSON: {exc}") from None
    failed = data.get("failed") if isinstance(data, dict) else None
    if not isinstance(failed, list):
        raise _Unreadable('not a record: no "failed" list')
    return {item for item in failed if isinstance(item, str)}


def _move_aside(path: Path, why: str) -> str:
    """Move an unreadable record out of the way (kept for a look); the warning to show."""
    aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}")
    try:
        os.replace(path, aside)
    except OSError as exc:
        return f"warning: {path} cannot be read ({why}) nor moved aside: {exc.strerror or exc}"
    return f"warning: {path} could not be read ({why}); moved to {aside.name}, starting anew"


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold the record's lock: concurrent runs (shards on one machine) each read, update
    and replace it in turn, so none loses another's update."""
    if fcntl is None:  # pragma: no cover - Windows: the atomic replace alone
        yield
        return
    with open(folder / LOCK, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read_last_failed(root: Path | None, warnings: list[str] | None = None) -> set[str]:
    """The identities that failed last time. A record that is not one is moved aside (its
    warning added to `warnings`) and reads as empty; one that cannot be read (an I/O
    error) is left where it is, with a warning, and reads as empty."""
    path = state_folder(root) / LAST_FAILED
    try:
        return _parse(path)
    except _NotRead as exc:
        if warnings is not None:
            warnings.append(f"warning: {path} cannot be read ({exc}); left as it is")
        return set()
    except _Unreadable as exc:
        warning = _move_aside(path, str(exc))
        if warnings is not None:
            warnings.append(warning)
        return set()


def write_last_failed(root: Path | None, ran: Iterable[tuple[str, bool]]) -> list[str]:
    """Update the record with this run: (identity, failed) of each scenario that ran.
    Returns the warnings to show (an unreadable record moved aside)."""
    from ..history.state import check_file, make_folder

    warnings: list[str] = []
    folder = state_folder(root)
    temporary: str | None = None
    try:
        make_folder(folder)
        check_file(folder / LOCK)
        check_file(folder / LAST_FAILED)
        with _locked(folder):
            record = folder / LAST_FAILED
            try:
                failed = _parse(record)
            except _NotRead as exc:  # maybe intact: not overwritten with this run alone
                warnings.append(f"warning: {record} cannot be read ({exc}); not updated")
                return warnings
            except _Unreadable as exc:
                warnings.append(_move_aside(record, str(exc)))
                failed = set()
            for identity, bad in ran:
                if bad:
                    failed.add(identity)
                else:
                    failed.discard(identity)
            # Replaced atomically: a reader without the lock sees the old or the new one.
            handle, temporary = tempfile.mkstemp(dir=folder, prefix=".lastfailed-")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump({"failed": sorted(failed)}, out, indent=1)
            os.chmod(temporary, 0o644)
            os.replace(temporary, folder / LAST_FAILED)
            temporary = None
    except OSError as exc:  # a full disk, a read-only checkout: the old record stands
        why = exc.strerror if exc.strerror and exc.filename else str(exc)
        warnings.append(f"warning: {folder / LAST_FAILED} was not updated: {why}")
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    return warnings
