"""Running the scenarios of loaded documents and pairing results with their lines."""

from __future__ import annotations

import asyncio
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

    async def main() -> list[ScenarioRun]:
        semaphore = asyncio.Semaphore(max(1, concurrency))

        async def one(doc: Document, entry: ScenarioEntry) -> ScenarioRun:
            scenario: Scenario = entry.scenario  # type: ignore[assignment]
            async with semaphore:
                result = await scenario.run(target=target, return_exception=True)
            run = ScenarioRun(doc, entry, result)
            if on_done is not None:
                on_done(run)
            return run

        return list(await asyncio.gather(*(one(d, e) for d, e in todo)))

    runs = asyncio.run(main()) if todo else []
    return RunReport(runs=runs, duration_s=time.perf_counter() - started)
