"""Which scenarios a run takes: its shard (`--shard K/N`) and the last failures (`--lf`).

A scenario's shard is a hash of its identity (file relative to the workspace root and
its name): the same on every machine, whatever the order of the paths or the other
files, so N CI jobs with K = 1..N run disjoint sets that together are the whole suite.

The last run's failing and erroring scenarios are kept in `.checkspec/lastfailed.json`
at the workspace root (as pytest keeps its own), updated after every run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

STATE_FOLDER = ".checkspec"
LAST_FAILED = "lastfailed.json"


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


def state_folder(root: Path | None) -> Path:
    return (root or Path.cwd()) / STATE_FOLDER


def read_last_failed(root: Path | None) -> set[str]:
    path = state_folder(root) / LAST_FAILED
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    failed = data.get("failed") if isinstance(data, dict) else None
    return {item for item in failed if isinstance(item, str)} if isinstance(failed, list) else set()


def write_last_failed(root: Path | None, ran: Iterable[tuple[str, bool]]) -> None:
    """Update the record with this run: (identity, failed) of each scenario that ran."""
    failed = read_last_failed(root)
    for identity, bad in ran:
        if bad:
            failed.add(identity)
        else:
            failed.discard(identity)
    folder = state_folder(root)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Concurrent runs (shards on one machine) each replace the whole file atomically.
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".lastfailed-")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump({"failed": sorted(failed)}, out, indent=1)
        os.chmod(temporary, 0o644)
        os.replace(temporary, folder / LAST_FAILED)
        ignore = folder / ".gitignore"
        if not ignore.exists():  # local state, never committed (as .pytest_cache does)
            ignore.write_text("# written by checkspec\n*\n", encoding="utf-8")
    except OSError:  # a read-only checkout: --lf just has nothing to go on
        pass
