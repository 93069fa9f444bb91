"""Executors: where and how the scenarios of a run execute (see base.py).

The names below load on first use: a worker process (`python -m
checkspec.engine.executor.worker`) imports this package first, and must not pay for the
pool, the settings and what they import before it has said it is ready (worker.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..imports import lazy_names

if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors
    from ..settings import worker_python as worker_python
    from .base import Executor as Executor
    from .jobs import Ending as Ending
    from .jobs import Job as Job
    from .jobs import Outcome as Outcome
    from .jobs import RunOptions as RunOptions
    from .local import InProcessExecutor as InProcessExecutor
    from .pool import WorkerPool as WorkerPool
    from .pool import WorkerStartError as WorkerStartError
    from .pool import default_size as default_size

# Each public name and the module (relative to this package) that defines it.
_HOMES = {
    "Ending": ".jobs",
    "Executor": ".base",
    "InProcessExecutor": ".local",
    "Job": ".jobs",
    "Outcome": ".jobs",
    "RunOptions": ".jobs",
    "WorkerPool": ".pool",
    "WorkerStartError": ".pool",
    "default_size": ".pool",
    "worker_python": "..settings",
}

__all__ = sorted(_HOMES)
__getattr__ = lazy_names(__name__, _HOMES)
