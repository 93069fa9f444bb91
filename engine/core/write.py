"""Writing a user's file in place: through a link inside the workspace, never out of it,
keeping the file's mode, refusing a read-only one.

`write_target(path, root)`: the file a write to `path` changes. A link is followed to its
target when that target is inside `root` (so a dataset shared by a link gets the edit,
and the link stays a link); a link out of `root`, or one that leads nowhere, is refused.
A file with no write bit (0444) is refused: its owner said it is not to change. Anything
but a regular file is refused.

`write_bytes_atomically(path, data, root)`: the bytes in place at once (a temporary file
beside the target, renamed over it), with the target's mode, or for a new file the mode
the umask gives (0666 & ~umask), as any editor would make it.

`WriteRefused` (an OSError) says why; callers report it as `error:` and exit 2.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class WriteRefused(OSError):
    """A file checkspec will not write (a link out of the workspace, a read-only file)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.strerror = message


def umask() -> int:
    """The process's umask (read by setting it back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_target(path: Path, root: Path | None) -> Path:
    """The file that writing `path` changes (see the module); WriteRefused if none."""
    if path.is_symlink():
        target = Path(os.path.realpath(path))
        inside = Path(os.path.realpath(root)) if root is not None else None
        if inside is None or not target.is_relative_to(inside):
            raise WriteRefused(
                f"{path} is a link out of the workspace (to {target}); "
                "checkspec writes through a link only to a file inside the workspace"
            )
        if not target.exists():
            raise WriteRefused(f"{path} is a link that leads nowhere ({target})")
        path = target
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return path
    if not stat.S_ISREG(mode):
        raise WriteRefused(f"{path} is not a regular file")
    if not mode & 0o222:
        raise WriteRefused(
            f"{path} is read-only (mode {stat.S_IMODE(mode):04o}); make it writable to change it"
        )
    return path


def write_bytes_atomically(path: Path, data: bytes, root: Path | None) -> Path:
    """Write `data` to `path` (see the module); the file written."""
    target = write_target(path, root)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~umask()
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target
