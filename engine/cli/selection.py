"""Which scenarios a run takes: its shard (`--shard K/N`) and the last failures (`--lf`).

A scenario's shard is a hash of its identity (file relative to the workspace root and
its name): the same on every machine, whatever the order of the paths or the other
files, so N CI jobs with K = 1..N run disjoint sets that together are the whole suite.

The last failures are the run session's record (engine/runs/last_failed.py): every front
end writes it; this module re-exports its reader and writer.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..runs.last_failed import (
    LAST_FAILED,
    LOCK,
    read_last_failed,
    state_folder,
    write_last_failed,
)

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


def shard_of(identity: str, count: int) -> int:
    """The 1-based shard of a scenario among `count`."""
    digest = hashlib.sha256(identity.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def narrowed(args: argparse.Namespace, documents: Sequence[Any]) -> list[Any] | None:
    """The scenarios of `documents` that --tag (every tag), --query and --status keep, as
    (document, entry) pairs; None when a filter kept nothing that it names (said on
    stderr). `run` and `calibrate` both narrow here; drafts are the caller's rule."""
    from ..runs.report import runnable

    todo = runnable(documents, args.tag)
    if args.tag and not todo and (unmatched := _unmatched_tags(documents, args.tag)):
        print(unmatched, file=sys.stderr)
        return None
    if args.query:
        from ..curate.select import keeps

        todo = [
            (d, e) for d, e in todo if keeps(scenario_value(e.node), (), None, query=args.query)
        ]
        if not todo:
            print(f"error: no scenario holds every word of --query {args.query!r}", file=sys.stderr)
            return None
    if args.status:
        from ..spec.status import is_draft

        todo = [(d, e) for d, e in todo if is_draft(e) == (args.status == "draft")]
    return todo


def scenario_value(node: Any) -> Any:
    """A scenario's value; a JSON Lines row whose nodes were let go is read without them."""
    from ..spec.json_rows import folded_value

    folded, value = folded_value(node)
    return value if folded else node.value


def _unmatched_tags(documents: Sequence[Any], tags: Sequence[str]) -> str | None:
    """The message for --tag values no scenario has (None when there is no scenario)."""
    existing = sorted({t for d in documents for e in d.scenarios for t in e.tags})
    if not any(d.scenarios for d in documents):
        return None
    known = ", ".join(existing) if existing else "none (no scenario has tags)"
    wanted = ", ".join(repr(t) for t in tags)
    which = "the tag" if len(tags) == 1 else "every tag of"
    return f"error: no scenario has {which} {wanted}; tags in these files: {known}"


def output_root() -> Path:
    """The workspace an output path is judged in (core/write.py's rule): the folder of
    the checkspec.yaml above the current folder, else the current folder."""
    from ..spec.workspace import find_config

    config = find_config(Path.cwd())
    return config.parent if config is not None else Path.cwd()


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
