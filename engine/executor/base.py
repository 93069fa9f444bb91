"""The executor interface shared by the CLI, the pytest plugin and the language server.

An executor takes jobs (scenarios with what they need to run) and yields one outcome per
job as soon as that job ends, in completion order. `cancel()` ends the stream early:
jobs not started are not started, running ones are stopped, and each still yields an
outcome (ending `cancelled`), so a caller always gets a result for every job.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Sequence

from .jobs import Job, Outcome, RunOptions


class Executor(ABC):
    @abstractmethod
    def stream(self, jobs: Sequence[Job], options: RunOptions) -> AsyncGenerator[Outcome, None]:
        """The outcome of every job, each as soon as it is known. One stream at a time."""

    @abstractmethod
    def cancel(self) -> None:
        """Stop the current stream (safe to call from any callback on the loop)."""

    async def aclose(self) -> None:  # noqa: B027 - most executors hold nothing to release
        """Release processes and threads; the executor is not used afterwards."""
