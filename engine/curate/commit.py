"""Writing the files a curation changed: all of them or none.

Every file is checked against the bytes it was read from (a file changed since is
refused, naming it), the new texts go to temporary files beside their targets, and only
then does each replace its file (`os.replace`, atomic on one file system). Should a
replace fail, the files already replaced get their old bytes back.

A file that is a link is edited at its target when that is inside the workspace (the link
stays a link, and the file it shares gets the edit); a link out of the workspace and a
read-only file (no write bit) are refused before anything is written (core/write.py).
A new file gets the mode the umask gives; a changed one keeps its mode.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.write import write_target
from .files import CurateError


@dataclass
class Change:
    """One file's change: `old` is None for a new file, `new` None for a deleted one."""

    path: Path
    old: bytes | None
    new: bytes | None

    def diff(self) -> str:
        before = (self.old or b"").decode("utf-8").splitlines(keepends=True)
        after = (self.new or b"").decode("utf-8").splitlines(keepends=True)
        name = self.path.as_posix()
        lines = difflib.unified_diff(
            before,
            after,
            "/dev/null" if self.old is None else f"a/{name}",
            "/dev/null" if self.new is None else f"b/{name}",
        )
        return "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in lines)


def commit(changes: Sequence[Change], root: Path | Callable[[Path], Path]) -> None:
    """Write every change or none; CurateError naming the file that stopped it. `root`:
    the workspace every path is judged in (an output named on the command line: the
    current folder's), or the rule giving each file's own (the project's `write_root`:
    the checkspec.yaml above it; curation searches for no workspace itself)."""
    changes = [c for c in changes if c.old != c.new]
    targets: dict[int, Path] = {}
    for n, change in enumerate(changes):  # links and read-only files: refused up front
        try:
            where = root(change.path) if callable(root) else root
            targets[n] = write_target(change.path, where)
        except OSError as exc:
            raise CurateError(f"{exc.strerror or exc}; nothing was written") from None
    changes = [
        Change(targets[n], change.old, change.new) if targets[n] != change.path else change
        for n, change in enumerate(changes)
    ]
    for change in changes:  # nothing is written until every file is as it was read
        try:
            now: bytes | None = change.path.read_bytes()
        except FileNotFoundError:
            now = None
        except OSError as exc:
            raise CurateError(f"{change.path}: cannot read: {exc.strerror or exc}") from None
        if now != change.old:
            what = "was created" if change.old is None else "changed"
            raise CurateError(
                f"{change.path}: {what} since it was read; nothing was written (run again)"
            )
    staged: list[tuple[Change, str | None]] = []
    try:
        for change in changes:
            if change.new is None:
                staged.append((change, None))
                continue
            folder = change.path.parent
            folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{change.path.name}.")
            with os.fdopen(handle, "wb") as out:
                out.write(change.new)
            if change.old is not None:
                os.chmod(temporary, change.path.stat().st_mode & 0o7777)
            else:
                os.chmod(temporary, 0o666 & ~_umask())
            staged.append((change, temporary))
    except OSError as exc:
        _discard(staged)
        raise CurateError(f"cannot write beside {change.path}: {exc.strerror or exc}") from None
    done: list[Change] = []
    try:
        for change, staged_at in staged:
            if staged_at is None:
                change.path.unlink()
            else:
                os.replace(staged_at, change.path)
            done.append(change)
    except OSError as exc:
        failed = change.path  # the file that stopped it, not the last one put back
        _discard(staged[len(done) :])
        for undone in done:  # put back what was already replaced
            if undone.old is None:
                undone.path.unlink(missing_ok=True)
            else:
                undone.path.write_bytes(undone.old)
        raise CurateError(
            f"{failed}: cannot write: {exc.strerror or exc}; nothing changed"
        ) from None


def _discard(staged: Sequence[tuple[Change, str | None]]) -> None:
    for _, temporary in staged:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
