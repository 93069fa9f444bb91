"""The project: the workspace a front end opens once, and what it holds.

`Project.open(paths)` finds the workspace of the paths a command is given (the nearest
checkspec.yaml in or above them, engine/spec/workspace.py) once; the CLI opens one per
command, the pytest plugin one per workspace root of the session, the language server
keeps a `Workspaces` index per folder. Everything below asks the project, never the file
system again: the workspace of each file (a nested checkspec.yaml counts for its files,
each read once per change of it), the settings (engine/settings.py's resolver, with
origins; a checkspec.yaml that cannot be used refuses), documents (whether the runnable
scenarios are kept is a parameter of each load), the scenarios' identities and the
`.checkspec/` state folder.

`project.select(selection, documents)` is THE evaluator of a selection (paths,
`FILE::NAME`, `FILE::#INDEX`, `--query`, `--tag`, `--status`, drafts, `--last-failed`,
`--shard`) for every front end: the scenarios chosen, what was left out and why, and the
refusals (a selection that cannot be: exit 2 on the CLI).

What a command does not use is imported by the method that uses it: opening a project
for `validate` loads neither the settings' models nor the run session.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.state_folder import STATE_FOLDER
from ..spec.workspace import Workspace, find_config, find_workspace, read_workspace

if TYPE_CHECKING:
    from ..curate.select import Facts
    from ..settings import Resolved, Settings
    from ..spec.document import Document
    from ..spec.scenario_analysis import ScenarioEntry
    from .selection import Selected, Selection

Pair = tuple["Document", "ScenarioEntry"]


class Workspaces:
    """The workspaces of files, found and read once: each folder's checkspec.yaml looked
    up once, each checkspec.yaml read once per change of it (its modification time). The
    server keeps one per folder it serves; a `Project` has its own."""

    def __init__(self, *, remember_folders: bool = True) -> None:
        # folder -> its nearest checkspec.yaml; not remembered by a long-lived reader (the
        # language server), which sees a checkspec.yaml made or removed at once.
        self._configs: dict[Path, Path | None] = {}
        self._remember = remember_folders
        self._read: dict[Path, tuple[float, Workspace]] = {}

    def config_for(self, path: str | PathLike[str]) -> Path | None:
        """The nearest checkspec.yaml of a file or folder (None: in no workspace)."""
        start = Path(path).resolve()
        folder = start if start.is_dir() else start.parent
        if not self._remember:
            return find_config(folder)
        if folder not in self._configs:
            self._configs[folder] = find_config(folder)
        return self._configs[folder]

    def root_of(self, path: str | PathLike[str]) -> Path | None:
        """The root of a file's workspace (None: in none)."""
        config = self.config_for(path)
        return config.parent if config is not None else None

    def workspace_for(self, path: str | PathLike[str]) -> Workspace:
        """The workspace of a file (no checkspec.yaml above it: the defaults)."""
        config = self.config_for(path)
        return Workspace() if config is None else self.read(config)

    def read(self, config: Path) -> Workspace:
        """A checkspec.yaml's workspace, read again only when it changed."""
        try:
            mtime = config.stat().st_mtime
        except OSError:
            mtime = -1.0
        cached = self._read.get(config)
        if cached is not None and cached[0] == mtime and mtime >= 0:
            return cached[1]
        workspace = read_workspace(config)
        if not workspace.problems or workspace.problems[0].code != "untrusted-config":
            self._read[config] = (mtime, workspace)  # trust is asked each time: owners change
        return workspace

    def remember(self, workspace: Workspace) -> None:
        """A workspace read elsewhere (the project's own), not read again."""
        if workspace.config_path is not None and workspace.config_path not in self._read:
            self._read[workspace.config_path] = (_mtime(workspace), workspace)


@dataclass
class Loaded:
    """The documents a list of selectors names, with what is wrong with them."""

    documents: list[Document] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # paths that do not exist
    configs: list[tuple[Path, Workspace]] = field(default_factory=list)  # of the files
    refusal: str | None = None  # a selector that names nothing (exit 2)
    no_files: bool = False  # the paths hold no spec file


class Project:
    """One workspace, opened once by a front end (see the module docstring)."""

    def __init__(self, workspace: Workspace, *, workspaces: Workspaces | None = None) -> None:
        self.workspace = workspace
        self.root = workspace.root
        # Where a project without checkspec.yaml keeps its state, and what a file in no
        # workspace is named from: the current folder (taken once, not at each use).
        self.cwd = Path.cwd()
        self.home = workspace.root or self.cwd
        self.workspaces = workspaces or Workspaces()
        if workspace.config_path is not None:
            self.workspaces.remember(workspace)

    @classmethod
    def open(cls, paths: Iterable[str | PathLike[str]] = ()) -> Project:
        """The project of the paths a command is given (else of the current folder).
        Raises WorkspaceConflict for paths of two workspaces."""
        return cls(find_workspace(paths))

    # -- what it holds -------------------------------------------------------------

    @property
    def state_folder(self) -> Path:
        """`.checkspec/` at the root (history, verdict cache, last failures)."""
        return self.home / STATE_FOLDER

    def workspace_for(self, path: str | PathLike[str]) -> Workspace:
        """The workspace of one of its files (a nested checkspec.yaml's for its files)."""
        return self.workspaces.workspace_for(path)

    def root_for(self, path: str | PathLike[str]) -> Path:
        """The root a file's identity is relative to: its checkspec.yaml's folder, else
        the current folder."""
        config = self.workspaces.config_for(path)
        return config.parent if config is not None else self.cwd

    def write_root(self, path: Path) -> Path:
        """The workspace a file is written in (core/write.py's rule): the folder of the
        nearest checkspec.yaml above the file itself (not above a link's target), else the
        current folder."""
        config = find_config(path.absolute().parent)
        return config.parent if config is not None else self.cwd

    def identity(self, path: str, entry: ScenarioEntry) -> str:
        """`<file relative to its workspace root>::<name>` (`#<index>` when unnamed): the
        same on every machine (--shard, --last-failed, merge, the history)."""
        from .report import scenario_identity

        return scenario_identity(path, entry, self.root_for(path))

    def resolved(self, **flags: Any) -> Resolved:
        """The settings with each value's origin (defaults < checkspec.yaml < environment <
        flags); ConfigUnreadable when checkspec.yaml cannot be used."""
        from ..settings import require_readable, resolve

        require_readable(self.workspace)
        return resolve(self.workspace, flags=flags)

    def settings(self, **flags: Any) -> Settings:
        """The settings of a run (paths absolute from the root); ConfigUnreadable when
        checkspec.yaml cannot be used: never defaults in its place."""
        from ..settings import run_settings

        return run_settings(self.workspace, **flags)

    # -- documents -----------------------------------------------------------------

    def load_file(self, path: Path, display: str | None = None, *, keep: bool = True) -> Document:
        """One file's analysis in its workspace; `keep`: each valid scenario's runnable
        form made now (a run), else when first asked for (validation)."""
        from ..spec.files import load_file

        return load_file(path, display, workspace=self.workspace_for(path), keep=keep)

    def load(self, selectors: Sequence[str], *, keep: bool = True) -> Loaded:
        """The documents the selectors name; a `FILE::NAME` or `FILE::#INDEX` keeps only
        the scenarios it names (a file also named whole keeps all of them)."""
        from ..curate.errors import CurateError
        from ..curate.selectors import resolve
        from ..spec.files import collect

        analysed: dict[Path, Document] = {}  # a `FILE::NAME` file read once, not twice

        def analysis(path: Path) -> Document:
            key = path.resolve()
            if key not in analysed:
                analysed[key] = self.load_file(path, keep=keep)
            return analysed[key]

        def scenarios_of(path: Path) -> Sequence[ScenarioEntry]:
            document = analysis(path)
            if any(p.severity.value == "error" for p in document.problems):
                from ..curate.files import read_spec

                read_spec(path)  # refused as curation refuses it (unparsable, unreadable)
            return document.scenarios

        try:  # one selection language (engine/curate/select.py): unknown -> refused
            paths, only = resolve(selectors, scenarios_of)
        except CurateError as error:
            return Loaded(refusal=str(error))
        files, missing = collect(paths)
        loaded = Loaded(missing=missing, no_files=not files and not missing)
        loaded.documents = [analysis(path) for path in files]
        configs = {c for path in files if (c := self.workspaces.config_for(path)) is not None}
        loaded.configs = [(c, self.workspaces.read(c)) for c in sorted(configs)]
        if only is not None:
            import copy

            documents = loaded.documents
            for at, document in enumerate(documents):
                if (kept := only.get(Path(document.path).resolve())) is not None:
                    documents[at] = copy.copy(document)  # the analysis may keep the original
                    documents[at].scenarios = [e for e in document.scenarios if e.index in kept]
        return loaded

    # -- selection -----------------------------------------------------------------

    def select(
        self, selection: Selection, documents: Sequence[Document]
    ) -> tuple[Selected, list[str]]:
        """The scenarios of `documents` the selection chooses (runnable ones), and the
        refusals: why the selection cannot be (a tag no scenario has, a query nothing
        matches); chosen nothing when refused."""
        from ..curate.select import Filters, narrow
        from .outcome import LeftOut
        from .selection import Selected
        from .session import runs

        # The filters read every scenario (a refusal names the tags there are, of valid
        # and invalid ones alike); a run then keeps the runnable ones of those chosen.
        everything = [(d, e) for d in documents for e in d.scenarios]
        filters = Filters(selection.tags, selection.query, selection.status)
        narrowed = narrow(everything, filters, _facts)
        if narrowed.refusal is not None:
            return Selected(), [narrowed.refusal.message]
        chosen = [(d, e) for d, e in narrowed.kept if e.runnable or not selection.runnable_only]
        left_out = LeftOut()
        if selection.status:
            reason = f"scenario(s) not of --status {selection.status}"
            left_out.add(
                reason,
                self._names([(d, e) for d, e in narrowed.not_of_status if e.runnable]),
            )
        if selection.drafts_rule:
            include = selection.include_drafts or selection.status == "draft"
            todo = [(d, e) for d, e in chosen if runs(e, include)]
            left_out.add(
                "draft scenario(s) not run (--include-drafts runs them)",
                self._names(_minus(chosen, todo)),
            )
        else:
            todo = chosen
        found = Selected(todo, len(todo), left_out)
        if selection.last_failed:
            again = self._last_failed(todo, found.notes)
            left_out.add(
                "scenario(s) that passed last time (--last-failed)",
                self._names(_minus(todo, again)),
            )
            todo = again
        if selection.shard:
            index, count = selection.shard
            mine = [(d, e) for d, e in todo if shard_of(self.identity(d.path, e), count) == index]
            left_out.add(
                f"scenario(s) of the other shards (--shard {index}/{count})",
                self._names(_minus(todo, mine)),
            )
            todo = mine
        found.entries = todo
        return found, []

    def _last_failed(self, todo: list[Pair], notes: list[str]) -> list[Pair]:
        """The scenarios that failed last time; all of them (with a note) when none did."""
        from .last_failed import read_last_failed

        warnings: list[str] = []
        failed = read_last_failed(self.root, warnings)
        again = [(d, e) for d, e in todo if self.identity(d.path, e) in failed]
        if warnings:  # not "none failed": the record says nothing
            notes.extend(warnings)
            notes.append("--last-failed: the last run's record is unreadable; running all")
            return todo
        if not again:
            notes.append("--last-failed: no scenario failed in the last run; running all")
            return todo
        notes.append(f"--last-failed: running the {len(again)} that failed last time")
        return again

    def _names(self, pairs: Sequence[Pair]) -> list[str]:
        return [self.identity(d.path, e) for d, e in pairs]


def shard_of(identity: str, count: int) -> int:
    """The 1-based shard of a scenario among `count` (a hash of its identity: the same on
    every machine, whatever the order of the paths)."""
    digest = hashlib.sha256(identity.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def _facts(pair: Pair) -> Facts:
    """What the selection's filters read of an analysed scenario (a JSON Lines row whose
    nodes were let go is read without them)."""
    from ..curate.select import Facts, holds
    from ..spec.json_rows import folded_value
    from ..spec.status import ACTIVE, DRAFT, is_draft

    _, entry = pair

    def holds_words(words: Sequence[str]) -> bool:
        folded, value = folded_value(entry.node)
        return holds(value if folded else entry.node.value, words)

    return Facts(entry.tags, DRAFT if is_draft(entry) else ACTIVE, holds_words)


def _minus(pairs: Sequence[Pair], kept: Sequence[Pair]) -> list[Pair]:
    """`pairs` but those in `kept` (by identity: comparing documents is comparing trees)."""
    ids = {id(e) for _, e in kept}
    return [(d, e) for d, e in pairs if id(e) not in ids]


def _mtime(workspace: Workspace) -> float:
    try:
        return workspace.config_path.stat().st_mtime if workspace.config_path else -1.0
    except OSError:
        return -1.0
