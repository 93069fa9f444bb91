"""checkspec's own state folder, `.checkspec/` at the workspace root (history, verdict
cache, last failures): local to this machine, never committed, as `.pytest_cache` is.

Every writer makes its folder through `make_state_folder`, which gives `.checkspec/` its
`.gitignore` (`*`) the first time, whichever command writes first (run, history, cache,
generate, --lf, init).
"""

from __future__ import annotations

import os
from pathlib import Path

STATE_FOLDER = ".checkspec"
GITIGNORE_TEXT = "# written by checkspec\n*\n"


def make_state_folder(path: Path) -> Path:
    """Make `path` (`.checkspec/` or a folder in it) and give the `.checkspec` folder on
    its way its `.gitignore`; returns `path`. A folder outside `.checkspec/` (a cache_dir
    set elsewhere) is only made. Raises OSError when `path` cannot be made."""
    path.mkdir(parents=True, exist_ok=True)
    for folder in (path, *path.parents):
        if folder.name == STATE_FOLDER:
            # Created exclusively, never through a link (docs/security.md).
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
            try:
                fd = os.open(folder / ".gitignore", flags, 0o666)
            except OSError:  # there already, or a read-only checkout: left as it is
                break
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(GITIGNORE_TEXT)
            break
    return path


__all__ = ["GITIGNORE_TEXT", "STATE_FOLDER", "make_state_folder"]
