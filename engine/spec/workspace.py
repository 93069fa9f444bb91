"""The workspace: the nearest `checkspec.yaml` up the folder tree and what it defines.

`find_workspace(paths)` is THE discovery: the nearest checkspec.yaml (or .yml) in or
above the paths a command is given, else the current folder, as pytest finds its rootdir
and ruff its config. Paths of two workspaces in one call raise `WorkspaceConflict`,
naming both roots. Only the project (engine/runs/project.py) calls it, once per front
end, and keeps what it read (`read_workspace`, once per change of the file); nothing
below the front ends searches for the workspace again (tests/engine/test_project.py
counts the callers). Its settings and custom checks are modelled in
workspace_config.py, and read with located problems by config_analysis.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

from ..catalog import CONFIG_NAMES
from .problems import Problem, Range
from .workspace_config import CustomCheck, WorkspaceConfig


@dataclass
class Workspace:
    """The folder of the nearest checkspec.yaml (or none) and its parsed config."""

    root: Path | None = None
    # Without a checkspec.yaml the defaults need no validating: model_construct does not
    # build the config's validator (nested models and all) at every start.
    config: WorkspaceConfig = field(default_factory=WorkspaceConfig.model_construct)
    config_path: Path | None = None
    problems: list[Problem] = field(default_factory=list)
    text: str | None = None  # checkspec.yaml's text as read (its keys' lines: origins)

    @property
    def custom_checks(self) -> dict[str, CustomCheck]:
        return self.config.custom()


def find_config(start: Path) -> Path | None:
    """The nearest checkspec.yaml (or checkspec.yml) in `start` (a file's folder) or above."""
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        for name in CONFIG_NAMES:
            path = candidate / name
            if path.is_file():
                return path
    return None


class WorkspaceConflict(ValueError):
    """The paths of one command lie in two workspaces (two checkspec.yaml files)."""

    def __init__(self, first: Path, second: Path) -> None:
        self.roots = (first, second)
        super().__init__(
            f"the paths given belong to two workspaces, {first} and {second} "
            "(each has its own checkspec.yaml); run them separately"
        )


def find_config_for(paths: Iterable[str | PathLike[str]] = ()) -> Path | None:
    """The one checkspec.yaml of `paths` (else of the current folder); None when there is
    none. Paths in no workspace go with the others' one; two different ones raise
    WorkspaceConflict."""
    starts = [Path(p).resolve() for p in paths] or [Path.cwd().resolve()]
    found: Path | None = None
    for start in starts:
        config = find_config(start)
        if config is None or config == found:
            continue
        if found is not None:
            raise WorkspaceConflict(found.parent, config.parent)
        found = config
    return found


def find_workspace(paths: Iterable[str | PathLike[str]] = ()) -> Workspace:
    """The workspace of the paths a command is given (else of the current folder): the
    nearest checkspec.yaml in or above them. Raises WorkspaceConflict for two."""
    config = find_config_for(paths)
    return Workspace() if config is None else read_workspace(config)


def _untrusted(config_path: Path) -> Workspace | None:
    """The workspace of a checkspec.yaml another user owns: none of its content, one
    problem saying whose it is and how to trust it (engine/spec/trust.py)."""
    from .trust import untrusted_reason

    reason = untrusted_reason(config_path)
    if reason is None:
        return None
    problem = Problem("untrusted-config", reason, Range.point(0, 0))
    return Workspace(root=config_path.parent, config_path=config_path, problems=[problem])


def read_workspace(config_path: Path) -> Workspace:
    """The workspace of one checkspec.yaml, read now (its reader keeps it: the project's
    `Workspaces`, per front end, not a module global)."""
    if (refused := _untrusted(config_path)) is not None:  # asked each time: owners change
        return refused
    try:
        workspace = workspace_from_text(config_path.read_text(encoding="utf-8"), config_path)
    except (OSError, UnicodeDecodeError) as exc:  # a located problem, not a traceback
        reason = exc.reason if isinstance(exc, UnicodeDecodeError) else exc.strerror or exc
        what = "is not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else "cannot be read"
        problem = Problem("unreadable", f"checkspec.yaml {what}: {reason}", Range.point(0, 0))
        workspace = Workspace(root=config_path.parent, config_path=config_path, problems=[problem])
    return workspace


def workspace_from_text(text: str, config_path: Path) -> Workspace:
    """Parse checkspec.yaml text; problems are located, a bad config never raises. A file
    of another user is not parsed (engine/spec/trust.py), whoever holds its text."""
    if (refused := _untrusted(config_path)) is not None:
        return refused
    from .config_analysis import analyze_config  # deferred for start-up time: YAML reader, checks

    config, problems = analyze_config(text)
    return Workspace(
        root=config_path.parent,
        config=config,
        config_path=config_path,
        problems=problems,
        text=text,
    )
