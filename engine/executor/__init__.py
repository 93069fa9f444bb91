"""Executors: where and how the scenarios of a run execute (see base.py)."""

from ..settings import worker_python
from .base import Executor
from .jobs import Ending, Job, Outcome, RunOptions
from .local import InProcessExecutor
from .pool import WorkerPool, WorkerStartError, default_size

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
