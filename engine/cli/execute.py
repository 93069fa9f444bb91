"""Running the scenarios of loaded documents and pairing results with their lines."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.result import ScenarioResult, TestCaseStatus
from ..scenario import Scenario
from ..spec.document import CheckEntry, Document, ScenarioEntry


@dataclass
class ScenarioRun:
    """A scenario's result with where it (and each of its checks) is written."""

    document: Document
    entry: ScenarioEntry
    result: ScenarioResult

    def check_entry(self, step: int, index: int) -> CheckEntry | None:
        return self.entry.check_at(step, index)

    def line(self) -> int:
        return self.entry.head.start.line + 1


@dataclass
class RunReport:
    runs: list[ScenarioRun] = field(default_factory=list)
    duration_s: float = 0.0

    def count(self, status: TestCaseStatus) -> int:
        return sum(1 for r in self.runs if r.result.status is status)

    @property
    def status(self) -> TestCaseStatus:
        statuses = {r.result.status for r in self.runs}
        for status in (TestCaseStatus.ERROR, TestCaseStatus.FAIL):
            if status in statuses:
                return status
        return TestCaseStatus.PASS


def selected(entry: ScenarioEntry, tags: list[str]) -> bool:
    return not tags or any(tag in entry.tags for tag in tags)


def run_documents(
    documents: list[Document],
    *,
    tags: list[str],
    concurrency: int,
    target: str | None,
    on_done: Callable[[ScenarioRun], None] | None = None,
) -> RunReport:
    """Run every valid, selected scenario (at most `concurrency` at once), in file order."""
    todo = [
        (doc, entry)
        for doc in documents
        for entry in doc.scenarios
        if entry.scenario is not None and selected(entry, tags)
    ]
    started = time.perf_counter()

    runs: list[ScenarioRun | None] = [None] * len(todo)

    async def main() -> None:
        # Returns nothing on purpose: on Python 3.11, asyncio.run() may repr() the main
        # task (and so its result) when it restores the SIGINT handler; with thousands of
        # results that repr alone took seconds.
        semaphore = asyncio.Semaphore(max(1, concurrency))

        async def one(index: int, doc: Document, entry: ScenarioEntry) -> None:
            scenario: Scenario = entry.scenario  # type: ignore[assignment]
            async with semaphore:
                result = await scenario.run(target=target, return_exception=True)
            runs[index] = run = ScenarioRun(doc, entry, result)
            if on_done is not None:
                on_done(run)

        await asyncio.gather(*(one(i, d, e) for i, (d, e) in enumerate(todo)))

    if todo:
        # The loaded documents are large and live for the whole run: move them out of the
        # collector's view so its full passes do not rescan them after every batch of results.
        gc.freeze()
        try:
            asyncio.run(main())
        finally:
            gc.unfreeze()
    done = [run for run in runs if run is not None]
    return RunReport(runs=done, duration_s=time.perf_counter() - started)
