"""pytest plugin: spec files as tests, one item per scenario.

Installed with checkspec but inert unless enabled, so other projects are not
surprised: `pytest -p checkspec`, `pytest --checkspec`, or `checkspec = true` in the
ini file. A failing item lists each failed check with its `file:line` and message.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .spec.document import ScenarioEntry
from .spec.kinds import FileKind, kind_from_name

_SPEC_KINDS = (FileKind.SCENARIO, FileKind.SUITE, FileKind.DATASET)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("checkspec")
    group.addoption(
        "--checkspec", action="store_true", help="collect checkspec scenario/suite/dataset files"
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
    if kind_from_name(file_path) in _SPEC_KINDS and _enabled(parent.config):
        return SpecFile.from_parent(parent, path=file_path)
    return None


class SpecFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        from .spec.files import load_file

        document = self.document = load_file(self.path, display=self._display())
        for problem in document.problems:
            if problem.severity.value == "error":
                yield InvalidSpec.from_parent(self, name="<file>", problems=[problem])
        for entry in document.scenarios:
            if entry.scenario is None:
                errors = [p for p in entry.problems if p.severity.value == "error"]
                yield InvalidSpec.from_parent(self, name=entry.name, problems=errors)
            else:
                yield ScenarioItem.from_parent(self, name=entry.name, entry=entry)

    def _display(self) -> str:
        try:
            return str(self.path.relative_to(self.config.rootpath))
        except ValueError:
            return str(self.path)


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

        scenario = self.entry.scenario
        assert scenario is not None
        result = asyncio.run(scenario.run(return_exception=True))
        if not result.passed and not result.skipped:
            document = self.parent.document  # type: ignore[attr-defined]
            lines = scenario_lines(ScenarioRun(document, self.entry, result))
            raise ScenarioFailed("\n".join(lines))

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
        shown = self.parent._display()  # type: ignore[attr-defined]
        raise ScenarioFailed("\n".join(p.format(shown) for p in self.problems))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Path, int, str]:
        line = self.problems[0].range.start.line if self.problems else 0
        return self.path, line, f"invalid spec: {self.name}"
