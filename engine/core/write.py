"""Writing a file: one rule for every path checkspec writes (reports, comparisons,
calibrations, merged reports, exports, imports, generated datasets, curated files, init).

The rule, `write_target(path, root)`, given the workspace `root` (the folder of the
checkspec.yaml in force, else the current folder):
- a path named inside the workspace is written only inside it: no link on its way, the
  file itself or a folder above it (`out/` linked to a home folder), nor `..` through
  such a link, leads out of the workspace; the refusal names where it would have led;
- the file itself, wherever it is named, is a link only to a file inside the workspace
  (a dataset shared by a link gets the edit, and the link stays a link); a link that
  leads nowhere is refused;
- a file with no write bit (0444) is refused: its owner said it is not to change;
- a folder is refused; a device or a pipe (`-o /dev/stdout`) is written in place only
  when a command writes a stream (`streams=True`), never through a link in the workspace.
A path outside the workspace is the user's own choice (`-o /tmp/r.html`) and is written
as named. `--force` never lifts the rule: it only lets an existing file be overwritten
(a stranger's repository can ship `report.html` as a link, and CI passes `--force`).

`write_bytes_atomically(path, data, root)`: the bytes in place at once (a temporary file
beside the target, renamed over it), with the target's mode, or for a new file the mode
the umask gives (0666 & ~umask), as any editor would make it; `streams=True` writes a
device or a pipe in place.

`WriteRefused` (an OSError) says why, naming the path; `os_problem(path, exc)` names the
path and what is wrong for any OSError of a write ("agent.py is a file, not a folder").
Callers report either as `error:` and exit 2.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path


class WriteRefused(OSError):
    """A file checkspec will not write (a link out of the workspace, a read-only file)."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.strerror = message
        self.reason = reason or message  # for a message that names the path already

    def __str__(self) -> str:
        return self.message


def umask() -> int:
    """The process's umask (read by setting it back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _named_inside(path: Path, root: Path) -> bool:
    """Whether the path as named enters the workspace: a step of it (not the workspace
    folder itself) lies inside it (`out/../../x` enters it at `out`, `../r.html` not)."""
    top = os.path.abspath(root)
    here = Path.cwd()
    return any(
        _inside(os.path.abspath(here / step), top) and os.path.abspath(here / step) != top
        for step in (*path.parents, path)
        if str(step) not in (".", step.anchor)
    )


def _is_stream(mode: int) -> bool:
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def write_target(path: Path, root: Path | None, *, streams: bool = False) -> Path:
    """The file that writing `path` changes (see the module); WriteRefused if none."""
    real_root = os.path.realpath(root) if root is not None else None
    named_inside = root is not None and _named_inside(path, root)
    end = os.path.realpath(path)  # where the system would write: every link followed
    if named_inside and real_root is not None and not _inside(end, real_root):
        raise WriteRefused(_out_of_workspace(path, end, root))
    if path.is_symlink():
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = None
        inside = real_root is not None and _inside(end, real_root)
        stream = streams and mode is not None and _is_stream(mode)
        if stream and not inside and not named_inside:
            return path  # `-o /dev/stdout`: the user's own stream
        if not inside:
            raise WriteRefused(_out_of_workspace(path, end, root))
        if mode is None:
            raise WriteRefused(f"{path} is a link that leads nowhere ({end})")
        path = Path(end)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise _named(path, exc) from None
    if streams and _is_stream(mode):
        return path
    if stat.S_ISDIR(mode):
        raise WriteRefused(f"{path} is a folder", "it is a folder")
    if not stat.S_ISREG(mode):
        raise WriteRefused(f"{path} is not a regular file")
    if not mode & 0o222:
        why = f"read-only (mode {stat.S_IMODE(mode):04o}); make it writable to change it"
        raise WriteRefused(f"{path} is {why}", f"it is {why}")
    return path


def _out_of_workspace(path: Path, end: str, root: Path | None) -> str:
    via = _first_link(path, root)
    what = "is a link" if via == path else f"goes through {via}, a link"
    return (
        f"{path} {what} out of the workspace (to {end}); checkspec writes through a link "
        "only to a place inside the workspace (remove the link, or name the place itself)"
    )


def _first_link(path: Path, root: Path | None) -> Path:
    """The first link in the workspace on the way to `path` (the folder or the file that
    leads out; a link above the workspace, /tmp on macOS, is the system's)."""
    top = os.path.abspath(root) if root is not None else None
    for step in (*reversed(path.parents), path):
        if top is not None and not _inside(os.path.abspath(step), top):
            continue
        if step.is_symlink():
            return step
    return path


def os_problem(path: Path, exc: OSError) -> str:
    """What is wrong writing `path`, naming it and the part of it at fault: an OSError's
    own text names neither ("Not a directory", "File exists")."""
    if isinstance(exc, WriteRefused):
        return str(exc)
    return f"{path}: {os_reason(path, exc)}"


def os_reason(path: Path, exc: OSError) -> str:
    """`os_problem` without the path in front (for a message that names it already)."""
    if isinstance(exc, WriteRefused):
        return exc.reason
    code = exc.errno
    if code in (errno.ENOTDIR, errno.EEXIST, errno.ENOENT):
        for folder in reversed(path.parents):
            if str(folder) in (".", folder.anchor):
                continue
            if folder.is_symlink() and not folder.exists():
                return f"{folder} is a link that leads nowhere"
            if folder.exists() and not folder.is_dir():
                return f"{folder} is a file, not a folder"
    if code in (errno.EISDIR, errno.EEXIST) and path.is_dir():
        return "it is a folder"
    if code in (errno.EACCES, errno.EPERM):
        blocked = next((f for f in (path, *path.parents) if f.exists()), path)
        what = "folder" if blocked.is_dir() else "file"
        if code == errno.EPERM:  # not the mode: an immutable file or folder, say
            return f"operation not permitted (the {what} {blocked} is immutable or locked)"
        return f"permission denied (the {what} {blocked} is not writable by this user)"
    return exc.strerror or str(exc)


def write_bytes_atomically(
    path: Path, data: bytes, root: Path | None, *, streams: bool = False
) -> Path:
    """Write `data` to `path` (see the module); the file written. WriteRefused (naming
    the path and what is wrong) for anything that stops it."""
    target = write_target(path, root, streams=streams)
    try:
        if streams and target.exists() and _is_stream(target.stat().st_mode):
            with target.open("wb") as out:  # a device or a pipe: written, never replaced
                out.write(data)
            return target
        try:
            mode = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~umask()
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except WriteRefused:
        raise
    except OSError as exc:
        raise _named(path, exc) from None
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _named(path, exc) from None
        raise
    return target


def _named(path: Path, exc: OSError) -> WriteRefused:
    """`exc` as a WriteRefused whose text names the path and what is wrong (its errno
    and bare reason kept for a message that names the path already)."""
    reason = os_reason(path, exc)
    named = WriteRefused(f"{path}: {reason}", reason)
    named.errno = exc.errno
    return named
