"""Spec files on disk: finding them and loading each into a Document."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..catalog import SCHEMA_KEY
from .document import Document, analyze
from .kinds import FileKind, is_json, kind_from_name, kind_from_schema
from .problems import Problem, Range
from .source import parse_source
from .tree import Source
from .workspace import Workspace

_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", "build", "dist"}


def collect(paths: Iterable[str | Path]) -> tuple[list[Path], list[str]]:
    """Spec files under the given files/folders (sorted), and paths that do not exist."""
    found: list[Path] = []
    missing: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(_walk(path)))
        elif path.is_file():
            found.append(path)
        else:
            missing.append(str(raw))
    return found, missing


def _walk(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in files:
            kind = file_kind(Path(root) / name)
            if kind is not None and kind is not FileKind.CONFIG:
                yield Path(root) / name


_PEEK = 64 * 1024  # a file whose first bytes do not mention $schema is not read further
_MAX_READ = 10_000_000


def file_kind(path: Path) -> FileKind | None:
    """A file's kind: by its name, else by a top-level `$schema` naming one of ours (the
    README's promise, kept by folder runs and the pytest plugin alike)."""
    kind = kind_from_name(path)
    if kind is not None or path.suffix not in (".yaml", ".yml", ".json"):
        return kind
    try:
        with path.open("rb") as stream:
            if b"$schema" not in stream.read(_PEEK) or path.stat().st_size > _MAX_READ:
                return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    root = parse_source(text, json=is_json(path), max_bytes=_MAX_READ).root
    if root is None or root.kind != "mapping":
        return None
    return kind_from_schema(root.value.get(SCHEMA_KEY))


def load_file(
    path: Path,
    display: str | None = None,
    *,
    workspace: Workspace | None = None,
    keep: bool = True,
) -> Document:
    """Read and analyse one file of `workspace` (the caller's: the project knows which
    one a file is in; none, the defaults); unreadable or oversized files become a located
    problem.

    With `keep`, each valid scenario is made runnable from where the file is (its base
    folders, the workspace's target timeout); without it only the problems are read, the
    runnable form made when first asked for.
    """
    shown = display or str(path)
    workspace = workspace or Workspace()
    limit, setting = workspace.config.size_limit(path)
    try:
        size = path.stat().st_size
        if size > limit:
            return _refused(
                shown,
                "too-large",
                f"file is {size / 1e6:.1f} MB, over the {limit / 1e6:g} MB limit "
                f"({setting} in checkspec.yaml)",
            )
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return _refused(shown, "encoding", f"file is not UTF-8 text: {exc.reason}")
    except OSError as exc:
        return _refused(shown, "unreadable", f"cannot read file: {exc.strerror or exc}")
    document = analyze(text, shown, workspace, keep=keep)
    if not keep:
        return document
    base_dirs = tuple(str(d) for d in (path.resolve().parent, workspace.root) if d is not None)
    for entry in document.scenarios:
        if entry.scenario is not None:
            # Cached analyses are shared between identical texts: give this file its own copy.
            entry.scenario = entry.scenario.placed(base_dirs, workspace.config.target_timeout)
    return document


def _refused(path: str, code: str, message: str) -> Document:
    problem = Problem(code, message, Range.point(0, 0))
    return Document(
        path=path, kind=kind_from_name(path), source=Source(None, [problem]), problems=[problem]
    )
