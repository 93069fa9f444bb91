"""Which scenarios a run takes: its shard (`--shard K/N`) and the last failures (`--lf`).

A scenario's shard is a hash of its identity (file relative to the workspace root and
its name): the same on every machine, whatever the order of the paths or the other
files, so N CI jobs with K = 1..N run disjoint sets that together are the whole suite.

The last failures are the run session's record (engine/runs/last_failed.py): every front
end writes it; this module re-exports its reader and writer.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..runs.last_failed import (
    LAST_FAILED,
    LOCK,
    read_last_failed,
    state_folder,
    write_last_failed,
)
from ..runs.project import shard_of

if TYPE_CHECKING:
    from ..runs.project import Project, Selection

__all__ = [
    "LAST_FAILED",
    "LOCK",
    "open_project",
    "parse_shard",
    "read_last_failed",
    "selection_of",
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


def open_project(paths: Iterable[str | os.PathLike[str]] = ()) -> Project:
    """The project of a command's paths (else of the current folder): THE place the CLI
    finds its workspace, once per command (engine/runs/project.py). Paths of two
    workspaces raise WorkspaceConflict (exit 2, engine/cli/main.py)."""
    from ..runs.project import Project

    return Project.open(paths)


def selection_of(args: argparse.Namespace, *, drafts_rule: bool = True) -> Selection:
    """A command's selection flags as the project's `Selection` (engine/runs/project.py)."""
    from ..runs.project import Selection

    return Selection(
        paths=tuple(getattr(args, "paths", ()) or ()),
        query=getattr(args, "query", None),
        tags=tuple(getattr(args, "tag", None) or ()),
        status=getattr(args, "status", None),
        include_drafts=bool(getattr(args, "include_drafts", False)),
        last_failed=bool(getattr(args, "last_failed", False)),
        shard=getattr(args, "shard", None),
        drafts_rule=drafts_rule,
    )


def output_root() -> Path:
    """The workspace an output path is judged in (core/write.py's rule): the folder of
    the checkspec.yaml above the current folder, else the current folder."""
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
