"""pytest plugin: spec files as tests, one item per scenario.

Installed with checkspec but inert unless enabled, so other projects are not
surprised: `pytest -p checkspec`, `pytest --checkspec`, or `checkspec = true` in the
ini file. A failing item lists each failed check with its `file:line` and message.
The session's scenario results are kept in the run history of their workspace
(`.checkspec/history.db`, source "pytest"; off with the `history: false` setting).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .executor import Outcome
    from .settings import Settings

from .spec.kinds import FileKind
from .spec.scenario_analysis import ScenarioEntry

_SPEC_KINDS = (FileKind.SCENARIO, FileKind.SUITE, FileKind.DATASET)
# The executor, settings and CLI reports are imported in the functions that use them: the
# plugin loads in every pytest session, most of which collect no spec file.


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("checkspec")
    group.addoption(
        "--checkspec", action="store_true", help="collect checkspec scenario/suite/dataset files"
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
        from .spec.files import load_file

        document = self.document = load_file(self.path, display=self.display())
        for problem in document.problems:
            if problem.severity.value == "error":
                yield InvalidSpec.from_parent(self, name="<file>", problems=[problem])
        query = self.config.getoption("checkspec_query", None)
        tags = self.config.getoption("checkspec_tag", None) or []
        status = self.config.getoption("checkspec_status", None)
        if query or tags or status:
            import copy

            from .curate.select import keeps
            from .spec.status import is_draft

            # A copy: the analysed document may be shared (kept by the analysis's caches).
            document = copy.copy(document)
            document.scenarios = [
                entry
                for entry in document.scenarios
                if keeps(
                    entry.node.value,
                    entry.tags,
                    "draft" if is_draft(entry) else None,
                    query=query,
                    tags=tags,
                    wanted_status=status,
                )
            ]
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
        from .cli.execute import ScenarioRun
        from .cli.reports import scenario_lines

        runs = _runs(self.session)
        outcome = runs.outcome(self)
        result = outcome.result
        if outcome.output:
            self.add_report_section("call", "output", outcome.output)
        document = _spec_file(self).document
        run = ScenarioRun.of(document, self.entry, result, outcome.output, outcome.ending)
        runs.finished.append((self.path, run))
        if not result.passed and not result.skipped:
            raise ScenarioFailed("\n".join(scenario_lines(run)))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
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
    so they run in parallel; each item then waits for its own outcome.
    """

    def __init__(self) -> None:
        self._futures: dict[str, Future[Outcome]] = {}
        self._threads: list[threading.Thread] = []
        self._pools: list[Any] = []
        self.started = time.time()
        self.clock = time.perf_counter()
        self.finished: list[tuple[Path, Any]] = []  # (spec file, ScenarioRun) as they end

    def outcome(self, item: ScenarioItem) -> Outcome:
        if item.nodeid not in self._futures:
            pending = [
                i
                for i in item.session.items
                if isinstance(i, ScenarioItem) and i.nodeid not in self._futures
            ]
            self._start(pending if item in pending else [item, *pending])
        return self._futures[item.nodeid].result()

    def _start(self, items: list[ScenarioItem]) -> None:
        from .executor import Job

        groups: dict[Settings, list[tuple[Job, Future[Outcome]]]] = {}
        for number, item in enumerate(items):
            future: Future[Outcome] = Future()
            self._futures[item.nodeid] = future
            scenario = item.entry.scenario
            assert scenario is not None
            groups.setdefault(_settings_for(item.path), []).append((Job(number, scenario), future))
        thread = threading.Thread(
            target=lambda: asyncio.run(self._run(groups)), name="checkspec-runs", daemon=True
        )
        self._threads.append(thread)
        thread.start()

    async def _run(self, groups: dict[Settings, list[tuple[Any, Future[Outcome]]]]) -> None:
        from .executor import RunOptions
        from .executor.start import executor_for

        for settings, jobs in groups.items():
            futures = {job.key: future for job, future in jobs}
            pool = executor_for(settings)
            self._pools.append((pool, asyncio.get_running_loop()))
            try:
                async for outcome in pool.stream([job for job, _ in jobs], RunOptions(settings)):
                    futures.pop(outcome.key).set_result(outcome)
            except BaseException as exc:
                for future in futures.values():
                    future.set_exception(exc)
            finally:
                await pool.aclose()

    def stop(self) -> None:
        for pool, loop in self._pools:
            if loop.is_running():
                loop.call_soon_threadsafe(pool.cancel)
        for thread in self._threads:
            thread.join(timeout=5)


def _settings_for(path: Path) -> Settings:
    """The workspace settings of a spec file, as `checkspec run` resolves them."""
    from .settings import run_settings
    from .spec.workspace import load_workspace

    return run_settings(load_workspace(path))


_RUNS = pytest.StashKey[_Runs]()


def _runs(session: pytest.Session) -> _Runs:
    runs = session.stash.get(_RUNS, None)
    if runs is None:
        runs = session.stash[_RUNS] = _Runs()
    return runs


def pytest_sessionfinish(session: pytest.Session) -> None:
    runs = session.stash.get(_RUNS, None)
    if runs is not None:
        runs.stop()
        _keep(runs)


def _keep(runs: _Runs) -> None:
    """The session's scenarios, one run a workspace, in its history (never raises)."""
    if not runs.finished:
        return
    from .cli.execute import RunReport
    from .cli.history import keep_run
    from .spec.workspace import load_workspace

    by_root: dict[Path | None, list[Any]] = {}
    settings_of: dict[Path | None, Settings] = {}
    root_of: dict[Path, Path | None] = {}  # a workspace read once a spec file
    for path, run in runs.finished:
        if path not in root_of:
            root_of[path] = load_workspace(path).root
        root = root_of[path]
        if root not in settings_of:
            settings_of[root] = _settings_for(path)
        by_root.setdefault(root, []).append(run)
    duration = time.perf_counter() - runs.clock
    for root, done in by_root.items():
        report = RunReport(
            runs=done,
            duration_s=duration,
            started=runs.started,
            source="pytest",
            settings=settings_of[root],
            root=root,
        )
        keep_run(report, settings_of[root], root)
