"""The nearest existing names to a path that does not exist, for "no such file" errors
(a selector, a report, a Hub file): `suites/exmple.scenario.yaml` -> `suites/example.
scenario.yaml`. The first part of the path that does not exist is matched (difflib)
against the names in the folder above it; the rest of the path follows the match when it
then exists."""

from __future__ import annotations

import itertools
from pathlib import Path

# Names read from one folder at most (a folder of 100,000 files is not listed whole).
_MAX_NAMES = 10_000


def nearest_paths(raw: str | Path, count: int = 3) -> list[str]:
    """Up to `count` existing paths spelled like `raw`, nearest first."""
    import difflib  # here: only a path not found needs it (start-up of every command)

    path = Path(raw)
    base = Path(path.anchor) if path.is_absolute() else Path()
    parts = path.parts[1:] if path.is_absolute() else path.parts
    for at, part in enumerate(parts):
        here = base / part
        try:
            if here.exists():
                base = here
                continue
            entries = list(itertools.islice(base.iterdir(), _MAX_NAMES))
        except OSError:
            return []
        names = [e.name for e in entries if part.startswith(".") or not e.name.startswith(".")]
        found = []
        for name in difflib.get_close_matches(part, names, n=count, cutoff=0.7):
            longer = base / name / Path(*parts[at + 1 :]) if at + 1 < len(parts) else None
            found.append(str(longer if longer is not None and longer.exists() else base / name))
        return found
    return []


def nearest_hint(raw: str | Path) -> str:
    """`; nearest: A, B` for a path that does not exist, or "" when nothing is near."""
    near = nearest_paths(raw)
    return f"; nearest: {', '.join(near)}" if near else ""
