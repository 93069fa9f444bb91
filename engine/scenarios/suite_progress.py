"""The suite's live progress display (rich), loaded only when a verbose suite run starts.

An overall row with a bar and an `M/N` counter, one row per scenario while it runs in
parallel mode, and under them the counts so far in the order of the final summary
(`1 errored, 5 failed, 2 skipped, 19 passed`, zeros left out). The names are giskard-checks'
(`_SuiteProgress`, `_OverallOnly`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import RenderableType
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn
from rich.text import Text

# status value -> (word, style), in the order the summary lists them
_SUMMARY = (
    ("error", "errored", "bold red"),
    ("fail", "failed", "red"),
    ("skip", "skipped", "yellow"),
    ("pass", "passed", "green"),
)


class _OverallOnly(ProgressColumn):
    """The wrapped column on the overall row only; blank on the scenario rows."""

    def __init__(self, column: ProgressColumn) -> None:
        super().__init__()
        self._column = column

    def render(self, task: Task) -> RenderableType:
        if not task.fields.get("overall"):
            return Text("")
        return self._column.render(task)


class _SuiteProgress(Progress):
    """rich's Progress with the status counts of the finished scenarios under the rows."""

    def __init__(self, *columns: ProgressColumn | str, **kwargs: Any) -> None:
        # Set before Progress.__init__, which may render (get_renderables reads them).
        self._counts = {status: 0 for status, _, _ in _SUMMARY}
        self._overall_id: Any = None
        if not columns:
            columns = (
                TextColumn("{task.description}"),
                _OverallOnly(BarColumn()),
                _OverallOnly(MofNCompleteColumn()),
            )
        kwargs.setdefault("transient", True)
        super().__init__(*columns, **kwargs)

    def start_overall(self, description: str, total: int) -> None:
        self._overall_id = self.add_task(description, total=total, overall=True)

    def record(self, status: Any) -> None:
        """Count one finished scenario (its ScenarioStatus) and advance the overall bar."""
        value = getattr(status, "value", status)
        self._counts[value] = self._counts.get(value, 0) + 1
        if self._overall_id is not None:
            self.advance(self._overall_id)

    @contextmanager
    def scenario_row(self, name: str) -> Iterator[None]:
        """A row for one scenario while it runs."""
        task_id = self.add_task(f"  ↳ {escape(name)}", total=None)
        try:
            yield
        finally:
            self.remove_task(task_id)

    def _summary_renderable(self) -> Text | None:
        """The counts so far, or None before the first scenario finishes."""
        parts = [
            f"[{style}]{self._counts[status]} {word}[/{style}]"
            for status, word, style in _SUMMARY
            if self._counts.get(status)
        ]
        return Text.from_markup("  " + ", ".join(parts)) if parts else None

    def get_renderables(self) -> Iterable[RenderableType]:
        yield self.make_tasks_table(self.tasks)
        summary = self._summary_renderable()
        if summary is not None:
            yield summary
