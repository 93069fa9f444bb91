"""A spec file loaded as the front ends load it: through its project (the workspace found
once, engine/runs/project.py), with the runnable scenarios kept unless `keep=False`."""

from __future__ import annotations

from pathlib import Path

from checkspec.engine.runs.project import Project
from checkspec.engine.spec.document import Document


def load_file(path: Path, display: str | None = None, *, keep: bool = True) -> Document:
    return Project.open([path]).load_file(path, display, keep=keep)
