"""pytest plugin: spec files as tests, one item per scenario.

Installed with checkspec but inert unless enabled, so other projects are not
surprised: `pytest -p checkspec`, `pytest --checkspec`, or `checkspec = true` in the
ini file. A failing item lists each failed check with its `file:line` and message.
The scenarios run through the run session every front end drives (engine/runs/), so
they run as `checkspec run` runs them: drafts (`status: draft`) are skipped unless
`--checkspec-drafts`; `--checkspec-repeat K` (and `--checkspec-min-pass-rate`) fold K runs
a scenario into one verdict; re-runs are marked; `--checkspec-max-cost` is the budget (else
the `max_cost` setting); and
the session's results are kept in the run history of their workspace
(`.checkspec/history.db`, source "pytest"; off with the `history: false` setting).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .runs import RunSession, ScenarioRun
    from .runs.project import Project
    from .settings import Settings

from .spec.kinds import FileKind
from .spec.scenario_analysis import ScenarioEntry

_SPEC_KINDS = (FileKind.SCENARIO, FileKind.SUITE, FileKind.DATASET)
# The run session, executor, settings and the text report are imported in the functions
# that use them: the plugin loads in every pytest session, most of which collect no spec file.


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("checkspec")
    group.addoption(
        "--checkspec", action="store_true", help="collect checkspec scenario/suite/dataset files"
    )
    group.addoption(
        "--checkspec-drafts",
        action="store_true",
        help="also run scenarios marked `status: draft` (as `checkspec run --include-drafts`)",
    )
    group.addoption(
        "--checkspec-repeat",
        type=int,
        default=1,
        metavar="K",
        help="run each scenario K times, one verdict (as `checkspec run --repeat K`)",
    )
    group.addoption(
        "--checkspec-min-pass-rate",
        type=float,
        default=1.0,
        metavar="RATE",
        help="with --checkspec-repeat: the share of its runs a scenario must pass (default 1)",
    )
    group.addoption(
        "--checkspec-max-cost",
        type=float,
        default=None,
        metavar="DOLLARS",
        help="dollars the session may spend on model calls (as `checkspec run --max-cost`)",
    )
    # The selection language of `checkspec run` (engine/curate/select.py): pytest's own
    # node ids already name files and `FILE::NAME`; these are its --query, --tag, --status.
    group.addoption("--checkspec-query", metavar="TEXT", help="scenarios holding every word")
    group.addoption(
        "--checkspec-tag", action="append", default=[], metavar="T", help="scenarios with tag T"
    )
    group.addoption(
        "--checkspec-status",
        choices=("draft", "active"),
        help="only scenarios of this review status",
    )
    parser.addini("checkspec", type="bool", default=False, help="collect checkspec spec files")


def _enabled(config: pytest.Config) -> bool:
    if config.getoption("checkspec", False) or config.getini("checkspec"):
        return True
    args = list(config.invocation_params.args)
    return any(
        a in ("-pcheckspec", "-p=checkspec")
        or (a == "-p" and i + 1 < len(args) and args[i + 1] == "checkspec")
        for i, a in enumerate(args)
    )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if not _enabled(parent.config):
        return None
    from .spec.files import file_kind  # the same test as folder runs (name, then $schema)

    if file_kind(file_path) in _SPEC_KINDS:
        return SpecFile.from_parent(parent, path=file_path)
    return None


class SpecFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        project = _projects(self.session).of(self.path)
        document = self.document = project.load_file(self.path, self.display())
        for problem in document.problems:
            if problem.severity.value == "error":
                yield InvalidSpec.from_parent(self, name="<file>", problems=[problem])
        query = self.config.getoption("checkspec_query", None)
        tags = self.config.getoption("checkspec_tag", None) or []
        status = self.config.getoption("checkspec_status", None)
        if query or tags or status:
            import copy

            from .runs.selection import Selection

            # A copy: the analysed document may be shared (kept by the analysis's caches).
            document = copy.copy(document)
            # The project's one evaluator; the drafts are the items' (skipped, said so),
            # and an invalid scenario stays an item that fails with its problems.
            wanted = Selection(
                query=query,
                tags=tuple(tags),
                status=status,
                drafts_rule=False,
                runnable_only=False,
            )
            chosen, _ = project.select(wanted, [document])  # nothing chosen: none kept
            kept = [entry for _, entry in chosen.entries]
            ids = {id(e) for e in kept}
            _verdicts(self.session).left_out.add(
                "scenario(s) not selected by --checkspec-query/-tag/-status",
                (f"{self.display()}::{e.name}" for e in document.scenarios if id(e) not in ids),
            )
            document.scenarios = kept
        for entry in document.scenarios:
            if entry.scenario is None:
                errors = [p for p in entry.problems if p.severity.value == "error"]
                yield InvalidSpec.from_parent(self, name=entry.name, problems=errors)
            else:
                yield ScenarioItem.from_parent(self, name=entry.name, entry=entry)

    def display(self) -> str:
        try:
            return str(self.path.relative_to(self.config.rootpath))
        except ValueError:
            return str(self.path)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A checkspec.yaml that cannot be used (errors, another user's) is a usage error of
    the session, as pytest's own `--strict-config` makes a bad ini file: no scenario runs
    with defaults in place of the settings it was written for. So is a model the
    scenarios would call that litellm cannot route (as `checkspec run` refuses it)."""
    if not _enabled(config):
        return
    from .runs.models import model_problems
    from .settings import ConfigUnreadable
    from .spec.workspace import Workspace

    max_cost = config.getoption("checkspec_max_cost", None)
    projects = _projects(items[0].session) if items else None
    # Each folder's project (opened once per workspace root) and its settings resolved
    # once (they refuse a checkspec.yaml that cannot be used); the items grouped by them.
    by_folder: dict[Path, Settings] = {}
    groups: dict[Settings, tuple[Workspace, list[ScenarioItem]]] = {}
    for item in items:
        if not isinstance(item, _SpecItem) or projects is None:
            continue
        folder = item.path.parent
        if folder not in by_folder:
            project = projects.of(item.path)
            workspace = project.workspace
            try:
                by_folder[folder] = projects.settings(project, max_cost)
            except ConfigUnreadable as exc:
                shown = None
                if exc.path is not None and exc.path.is_relative_to(config.rootpath):
                    shown = str(exc.path.relative_to(config.rootpath))
                raise pytest.UsageError("\n".join(exc.lines(shown))) from None
            groups.setdefault(by_folder[folder], (workspace, []))
        if isinstance(item, ScenarioItem):
            groups[by_folder[folder]][1].append(item)
    for settings, (workspace, group) in groups.items():
        todo = [(_spec_file(i).document, i.entry) for i in group]
        if todo and (problems := model_problems(todo, settings, workspace)):
            raise pytest.UsageError("\n".join(problems))


def _spec_file(item: pytest.Item) -> SpecFile:
    """The spec file an item of ours was collected from."""
    parent = item.parent
    assert isinstance(parent, SpecFile)
    return parent


class ScenarioFailed(Exception):
    """Raised by a scenario item; its text is the report pytest shows."""


class _SpecItem(pytest.Item):
    # Some plugins' hook wrappers (pytest-lsp's pytest_runtest_call) expect every item to
    # have funcargs, as pytest.Function does; ours take none.
    funcargs: dict[str, Any] = {}


class ScenarioItem(_SpecItem):
    def __init__(self, *, entry: ScenarioEntry, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.funcargs = {}
        self.entry = entry
        for tag in entry.tags:
            marker = "".join(c if c.isalnum() else "_" for c in tag)
            self.config.addinivalue_line("markers", f"{marker}: checkspec tag '{tag}'")
            self.add_marker(marker)

    def runtest(self) -> None:
        from .runs.outcome import checked
        from .runs.session import runs
        from .runs.text_report import scenario_lines

        verdicts = _verdicts(self.session)
        if not runs(self.entry, bool(self.config.getoption("checkspec_drafts", False))):
            verdicts.left_out.add(_DRAFTS, [self.nodeid])
            pytest.skip("a draft (status: draft): --checkspec-drafts runs it")
        run = _runs(self.session).outcome(self)
        if checked(run):
            verdicts.checked = True
        else:
            verdicts.unchecked.append(self.nodeid)
        if run.output:
            from .llm.snapshot import redactor  # what the scenario printed: no secret

            self.add_report_section("call", "output", redactor().text(run.output))
        result = run.result
        if not result.passed and not result.skipped:
            raise ScenarioFailed("\n".join(scenario_lines(run)))
        if result.skipped:  # as the CLI's SKIP: no check ran, nothing passed
            pytest.skip("no check ran (every check disabled or skipped)")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed):
            from .llm.snapshot import redactor  # pytest's report, --junitxml: no secret

            return redactor().text(str(excinfo.value))
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.entry.head.start.line, f"scenario: {self.name}"


class InvalidSpec(_SpecItem):
    def __init__(self, *, problems: list[Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.funcargs = {}
        self.problems = problems

    def runtest(self) -> None:
        shown = _spec_file(self).display()
        raise ScenarioFailed("\n".join(p.format(shown) for p in self.problems))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Path, int, str]:
        line = self.problems[0].range.start.line if self.problems else 0
        return self.path, line, f"invalid spec: {self.name}"


class _Runs:
    """The session's scenario runs, in worker processes, in the background.

    The first scenario item to run submits every scenario item of the session at once,
    one run session (engine/runs/) a workspace's settings, so they run in parallel; each
    item then waits for its own (folded) run.
    """

    def __init__(self, config: pytest.Config) -> None:
        self._futures: dict[str, Future[ScenarioRun]] = {}
        self._threads: list[threading.Thread] = []
        self._sessions: list[tuple[RunSession, asyncio.AbstractEventLoop]] = []
        self.include_drafts = bool(config.getoption("checkspec_drafts", False))
        self.repeat = max(1, int(config.getoption("checkspec_repeat", 1) or 1))
        self.min_pass_rate = float(config.getoption("checkspec_min_pass_rate", 1.0))
        self.max_cost: float | None = config.getoption("checkspec_max_cost", None)

    def outcome(self, item: ScenarioItem) -> ScenarioRun:
        if item.nodeid not in self._futures:
            pending = [
                i
                for i in item.session.items
                if isinstance(i, ScenarioItem) and i.nodeid not in self._futures
            ]
            self._start(pending if item in pending else [item, *pending])
        return self._futures[item.nodeid].result()

    def _start(self, items: list[ScenarioItem]) -> None:
        from .runs import RunSession

        projects = _projects(items[0].session) if items else None
        groups: dict[tuple[Settings, Project], list[ScenarioItem]] = {}
        for item in items:
            assert projects is not None
            project = projects.of(item.path)
            key = (projects.settings(project, self.max_cost), project)
            groups.setdefault(key, []).append(item)
        planned: list[tuple[RunSession, list[Future[ScenarioRun]]]] = []
        for (settings, project), group in groups.items():
            session = RunSession(
                [(_spec_file(i).document, i.entry) for i in group],
                settings=settings,
                repeat=self.repeat,
                min_pass_rate=self.min_pass_rate,
                include_drafts=self.include_drafts,
                source="pytest",
                root=project.root,
                project=project,
            )
            futures: list[Future[ScenarioRun]] = []
            for n in session.picked:
                future: Future[ScenarioRun] = Future()
                self._futures[group[n].nodeid] = future
                futures.append(future)
            planned.append((session, futures))
        thread = threading.Thread(
            target=lambda: asyncio.run(self._run(planned)), name="checkspec-runs", daemon=True
        )
        self._threads.append(thread)
        thread.start()

    async def _run(self, planned: list[tuple[RunSession, list[Future[ScenarioRun]]]]) -> None:
        from .executor.start import executor_for

        for session, futures in planned:
            session.executor = pool = executor_for(session.settings)
            self._sessions.append((session, asyncio.get_running_loop()))
            try:
                async for n, run in session.results():
                    futures[n].set_result(run)
            except BaseException as exc:
                for future in futures:
                    if not future.done():
                        future.set_exception(exc)
            finally:
                await pool.aclose()

    def stop(self) -> None:
        for session, loop in self._sessions:
            if loop.is_running():
                loop.call_soon_threadsafe(session.cancel)
        for thread in self._threads:
            thread.join(timeout=5)

    def keep(self) -> None:
        """Each session's run in its workspace's history (never raises)."""
        for session, _ in self._sessions:
            session.keep(session.report())


class _Projects:
    """The session's projects: one per workspace root among the collected folders, each
    opened once (engine/runs/project.py), with its settings resolved once."""

    def __init__(self) -> None:
        from .runs.project import Workspaces

        self.workspaces = Workspaces()
        self._projects: dict[Path | None, Project] = {}
        self._settings: dict[tuple[int, float | None], Settings] = {}

    def of(self, path: Path) -> Project:
        """The project of a spec file (its nearest checkspec.yaml's; none: the defaults')."""
        from .runs.project import Project

        config = self.workspaces.config_for(path)
        if config not in self._projects:
            workspace = self.workspaces.workspace_for(path)
            self._projects[config] = Project(workspace, workspaces=self.workspaces)
        return self._projects[config]

    def settings(self, project: Project, max_cost: float | None) -> Settings:
        """A project's settings, as `checkspec run` resolves them (ConfigUnreadable for a
        checkspec.yaml that cannot be used)."""
        key = (id(project), max_cost)
        if key not in self._settings:
            self._settings[key] = project.settings(max_cost=max_cost)
        return self._settings[key]


_PROJECTS = pytest.StashKey[_Projects]()


def _projects(session: pytest.Session) -> _Projects:
    found = session.stash.get(_PROJECTS, None)
    if found is None:
        found = session.stash[_PROJECTS] = _Projects()
    return found


_RUNS = pytest.StashKey[_Runs]()


def _runs(session: pytest.Session) -> _Runs:
    runs = session.stash.get(_RUNS, None)
    if runs is None:
        runs = session.stash[_RUNS] = _Runs(session.config)
    return runs


class _Verdicts:
    """What the session's scenarios checked: a session that ran scenario items and
    checked nothing (every one a draft, filtered out, or without a check that ran) is not
    green (engine/runs/outcome.py)."""

    def __init__(self) -> None:
        from .runs.outcome import LeftOut

        self.left_out = LeftOut()
        self.unchecked: list[str] = []  # node ids of scenarios that ran no check
        self.checked = False  # a scenario gave a verdict
        self.other = False  # a test that is not ours passed or failed (a mixed session)
        self.checked_nothing = False  # the session's verdict: exit 5

    def nothing_checked(self, session: pytest.Session, exitstatus: int) -> bool:
        """A green session whose spec items checked nothing and no other test ran."""
        ours = any(isinstance(i, _SpecItem) for i in session.items)
        return exitstatus == pytest.ExitCode.OK and ours and not (self.checked or self.other)

    def lines(self) -> list[str]:
        from .runs.outcome import UNCHECKED, listed

        lines = self.left_out.lines()
        if self.unchecked:
            lines.append(listed("unchecked", UNCHECKED, self.unchecked))
        return lines


_DRAFTS = "draft scenario(s) not run (--checkspec-drafts runs them)"
_VERDICTS = pytest.StashKey[_Verdicts]()


def _verdicts(session: pytest.Session) -> _Verdicts:
    """The session's (kept on its config: the terminal summary is given the config)."""
    stash = session.config.stash
    verdicts = stash.get(_VERDICTS, None)
    if verdicts is None:
        verdicts = stash[_VERDICTS] = _Verdicts()
    return verdicts


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome: Any = yield  # pluggy's result of the other implementations
    report = outcome.get_result()
    ours = isinstance(item, _SpecItem)
    if call.when == "call" and not report.skipped and not ours and _enabled(item.config):
        _verdicts(item.session).other = True


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    runs = session.stash.get(_RUNS, None)
    if runs is not None:
        runs.stop()
        runs.keep()
    verdicts = session.config.stash.get(_VERDICTS, None)
    if verdicts is not None and verdicts.nothing_checked(session, exitstatus):
        # pytest's own code for "no tests collected": a green needs a verdict.
        session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED
        verdicts.checked_nothing = True


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Which scenarios were left out and why, and a session that checked nothing, said
    where pytest says its results (stdout)."""
    verdicts = config.stash.get(_VERDICTS, None)
    if verdicts is None or config.getoption("collectonly", False):  # listing, not running
        return
    lines = verdicts.lines()
    if verdicts.checked_nothing:
        lines.append("nothing checked: no scenario ran a check (exit 5)")
    if lines:
        terminalreporter.section("checkspec")
        for line in lines:
            terminalreporter.write_line(line)
