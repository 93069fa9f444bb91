"""Executors: where and how the scenarios of a run execute (see base.py).

The names below are loaded when first asked for: a worker process
(`python -m checkspec.engine.executor.worker`) imports this package first, and needs
none of the pool, the in-process executor or the settings' resolution to start.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..settings import worker_python
    from .base import Executor
    from .jobs import Ending, Job, Outcome, RunOptions
    from .local import InProcessExecutor
    from .pool import WorkerPool, WorkerStartError, default_size

_WHERE = {
    "worker_python": "..settings",
    "Executor": ".base",
    "Ending": ".jobs",
    "Job": ".jobs",
    "Outcome": ".jobs",
    "RunOptions": ".jobs",
    "InProcessExecutor": ".local",
    "WorkerPool": ".pool",
    "WorkerStartError": ".pool",
    "default_size": ".pool",
}

__all__ = [
    "Ending",
    "Executor",
    "InProcessExecutor",
    "Job",
    "Outcome",
    "RunOptions",
    "WorkerPool",
    "WorkerStartError",
    "default_size",
    "worker_python",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
