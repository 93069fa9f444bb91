"""The CLI's one opening of a project (engine/runs/project.py): each command finds its
workspace here, once, and turns its selection flags into the project's `Selection`.

Light on purpose: `validate` imports it, and it imports nothing of the run session.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..runs.project import Project
    from ..runs.selection import Selection


def open_project(paths: Iterable[str | os.PathLike[str]] = ()) -> Project:
    """The project of a command's paths (else of the current folder): THE place the CLI
    finds its workspace, once per command (engine/runs/project.py). Paths of two
    workspaces raise WorkspaceConflict (exit 2, engine/cli/main.py)."""
    from ..runs.project import Project

    return Project.open(paths)


def selection_of(args: argparse.Namespace, *, drafts_rule: bool = True) -> Selection:
    """A command's selection flags as the project's `Selection` (engine/runs/project.py)."""
    from ..runs.selection import Selection

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
