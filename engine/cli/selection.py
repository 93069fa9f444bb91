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
