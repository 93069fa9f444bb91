"""A progress bar on a terminal (rich); nothing when output is piped."""

from __future__ import annotations

from types import TracebackType
from typing import Any


class Progress:
    def __init__(self, total: int, *, enabled: bool) -> None:
        self._bar: Any = None
        self._task: Any = None
        if enabled and total > 1:
            from rich.progress import BarColumn, MofNCompleteColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                transient=True,
            )
            self._task = self._bar.add_task("running", total=total)

    def __enter__(self) -> Progress:
        if self._bar is not None:
            self._bar.start()
        return self

    def advance(self) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.stop()
