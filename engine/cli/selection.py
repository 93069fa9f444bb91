"""The CLI's side of a selection: `--shard K/N` parsed (the project evaluates it,
engine/runs/project.py `Project.select`), and where a command's output file (`-o`) may
be written.

A scenario's shard is a hash of its identity (file relative to the workspace root and
its name): the same on every machine, whatever the order of the paths or the other
files, so N CI jobs with K = 1..N run disjoint sets that together are the whole suite.

The last failures are the run session's record (engine/runs/last_failed.py): every front
end writes it; this module re-exports its reader and writer.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..runs.last_failed import (
    LAST_FAILED,
    LOCK,
    read_last_failed,
    state_folder,
    write_last_failed,
)
from ..runs.project import shard_of

__all__ = [
    "LAST_FAILED",
    "LOCK",
    "parse_shard",
    "read_last_failed",
    "shard_of",
    "state_folder",
    "write_last_failed",
]


def parse_shard(text: str) -> tuple[int, int]:
    """`K/N` with 1 <= K <= N (argparse type)."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected K/N such as 2/4, got {text!r}") from None
    if count < 1 or not 1 <= index <= count:
        raise argparse.ArgumentTypeError(f"K/N needs 1 <= K <= N, got {text!r}")
    return index, count


def output_root() -> Path:
    """The workspace an output path is judged in (core/write.py's rule): the folder of
    the checkspec.yaml above the current folder, else the current folder."""
    from .project import open_project

    return open_project().home


def output_problem(path: Path) -> str | None:
    """Why an output file (`-o`) cannot be written, checked before the work that makes it
    (core/write.py's one rule: no link out of the workspace, its target named; a folder,
    a read-only file, a file where a folder goes); else its folder is made and None."""
    from ..core.write import os_reason, write_target

    try:
        write_target(path, output_root(), streams=True)
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return os_reason(path, exc)
    if not os.access(path if path.exists() else path.parent, os.W_OK):
        return os_reason(path, PermissionError(13, "Permission denied"))
    return None


def write_output(path: Path, text: str) -> str | None:
    """Write a command's output file (`-o`) under the same rule; why not, if it could
    not be (a message naming the path and what is wrong), else None."""
    from ..core.write import os_reason, write_bytes_atomically

    try:
        write_bytes_atomically(path, text.encode("utf-8"), output_root(), streams=True)
    except OSError as exc:
        return f"cannot write {path}: {os_reason(path, exc)}"
    return None
