"""The spec files of a workspace on disk, for features that look past the open files.

A workspace is the folder of a checkspec.yaml; a folder below it with its own
checkspec.yaml is another workspace and is left out, as are hidden folders, virtual
environments and node_modules. The walk is bounded: a huge tree cannot stall a request.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from checkspec.engine.spec.kinds import CONFIG_NAMES, FileKind, kind_from_name

MAX_FILES = 5000
_SKIPPED = frozenset({"node_modules", "venv", ".venv", "__pycache__", "site-packages"})


def spec_files(root: Path, limit: int = MAX_FILES) -> Iterator[Path]:
    """Scenario, suite and dataset files of the workspace rooted at `root` (sorted per folder)."""
    count = 0
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in _SKIPPED
            and not any((here / d / n).is_file() for n in CONFIG_NAMES)  # another workspace
        )
        for name in sorted(files):
            kind = kind_from_name(name)
            if kind is None or kind is FileKind.CONFIG:
                continue
            count += 1
            if count > limit:
                return
            yield here / name
