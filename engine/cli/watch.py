"""`checkspec run --watch PATH...`: run, then run again what changed, until Ctrl-C.

A changed spec file under the paths given runs again on its own; a change to anything a
run imports or reads besides (a `.py` module, checkspec.yaml) runs every path again. The
report written with `-o` and checkspec's own state (`.checkspec/`) are not changes.
Changes are seen through watchfiles (OS notifications, batched for a moment).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from ..spec.kinds import FileKind, is_config_name, kind_from_name

EXIT_INTERRUPTED = 130
# A run stopped by Ctrl-C, SIGTERM or SIGHUP (128 + the signal): watching stops too.
INTERRUPTED = {EXIT_INTERRUPTED, 128 + 15, 128 + 1}
_IGNORED_PARTS = frozenset({".git", ".checkspec", "__pycache__", ".venv", "venv", "node_modules"})


def watch(args: argparse.Namespace, run: Callable[[argparse.Namespace], int]) -> int:
    """Run `args.paths` once, then again on each change; the last run's exit code."""
    from watchfiles import watch as changes_of  # only this mode needs it

    code = run(args)
    if code in INTERRUPTED:
        return code
    roots = watched_roots(args.paths)
    ignored = {Path(args.output).resolve()} if args.output else set()
    announced = False
    try:
        # An empty batch comes when nothing changed for a while: the watcher is running by
        # then, so "watching" is said only once a change would be seen.
        for batch in changes_of(
            *roots, debounce=300, raise_interrupt=True, yield_on_timeout=True, rust_timeout=500
        ):
            if not batch:
                if not announced:
                    print(_waiting(roots), file=sys.stderr)
                    announced = True
                continue
            again = paths_to_run(args.paths, (Path(p) for _, p in batch), ignored)
            if not again:
                continue
            print(f"\nchanged: running {', '.join(again)}", file=sys.stderr)
            code = run(argparse.Namespace(**{**vars(args), "paths": again}))
            if code in INTERRUPTED:
                return code
            announced = False
    except KeyboardInterrupt:
        print("stopped watching", file=sys.stderr)
    return code


def watched_roots(paths: Iterable[str]) -> list[Path]:
    """The folders to watch: each folder given, the folder of each file given, and the
    workspace root above them (its modules and checkspec.yaml), without duplicates."""
    from .project import open_project

    roots: list[Path] = []
    for raw in paths:
        path = Path(raw).resolve()
        folder = path if path.is_dir() else path.parent
        for candidate in (folder, open_project([folder]).root):
            if candidate is not None and not any(
                candidate == r or candidate.is_relative_to(r) for r in roots
            ):
                roots = [r for r in roots if not r.is_relative_to(candidate)] + [candidate]
    return roots


def paths_to_run(given: list[str], changed: Iterable[Path], ignored: set[Path]) -> list[str]:
    """Which of the paths given to run again for these changed files ([] for none)."""
    specs: list[str] = []
    for path in changed:
        resolved = path.resolve()
        if resolved in ignored or _IGNORED_PARTS & set(resolved.parts):
            continue
        kind = kind_from_name(path.name)
        if path.suffix == ".py" or is_config_name(path):
            return list(given)  # what every scenario may import or read
        if kind is None or kind is FileKind.CONFIG:
            continue
        if _under_any(resolved, given) and str(path) not in specs:
            specs.append(str(path))
    return specs


def _under_any(path: Path, given: list[str]) -> bool:
    for raw in given:
        root = Path(raw).resolve()
        if path == root or (root.is_dir() and path.is_relative_to(root)):
            return path.exists()
    return False


def _waiting(roots: list[Path]) -> str:
    shown = ", ".join(str(r) for r in roots)
    return f"watching {shown} for changes (Ctrl-C to stop)"
