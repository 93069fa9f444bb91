"""The workspace's `.checkspec/` folder: local state (the history, the last-failed record)
written only where it should be.

A link in it is refused, never followed: a `history.db` link would have its target
overwritten with SQLite, a dangling one would make a database outside the workspace, and
a `.checkspec` that is a link would get a `.gitignore` written into its target. A state
file that is a folder (or anything but a regular file) is refused too. `StateError` says
which and why; the callers report it on one line and the run's result stands.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..core.state_folder import GITIGNORE_TEXT, make_state_folder

GITIGNORE = GITIGNORE_TEXT


class StateError(OSError):
    """A state path that checkspec will not write through (a link, a folder)."""


def check_folder(folder: Path) -> None:
    """Refuse a state folder that is a link or not a folder (it may not exist yet)."""
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        raise StateError(f"{folder} is a link; checkspec writes its state only in a real folder")
    if not stat.S_ISDIR(mode):
        raise StateError(f"{folder} is not a folder")


def check_file(path: Path) -> None:
    """Refuse a state file that is a link (even a dangling one) or not a regular file
    (it may not exist yet); its folder is checked too."""
    check_folder(path.parent)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        raise StateError(f"{path} is a link; checkspec does not write through links in its state")
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise StateError(f"{path} is {kind}; move it away and run again")


def make_folder(folder: Path) -> None:
    """Create the state folder (and its `.gitignore`: local state, never committed, as
    .pytest_cache does), refusing a link. OSError when it cannot be made."""
    check_folder(folder)
    make_state_folder(folder)
    check_folder(folder)
