"""The one way a front end starts an executor for a run: the CLI, the pytest plugin and
the language server all call `executor_for` with their resolved settings
(engine/settings.py), then stream `Job`s through it with `RunOptions(settings)`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .base import Executor
from .local import InProcessExecutor
from .pool import WorkerPool, default_size

if TYPE_CHECKING:
    from ..settings import Settings

EXECUTORS = ("process", "inprocess", "ray")


def executor_for(
    settings: Settings,
    kind: str = "process",
    *,
    keep_warm: bool = False,
    ray_address: str | None = None,
    root: Path | None = None,
) -> Executor:
    """An executor of the given kind sized by the settings (workers, concurrency, python)."""
    if kind == "inprocess":
        return InProcessExecutor(settings.concurrency)
    if kind == "ray":
        from .ray_executor import RayExecutor

        return RayExecutor(address=ray_address, root=root, concurrency=settings.concurrency)
    return WorkerPool(
        size=default_size(settings.jobs),
        concurrency=settings.concurrency,
        python=settings.python,
        keep_warm=keep_warm,
    )
