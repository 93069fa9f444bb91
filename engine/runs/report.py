"""What a run is: each scenario's result with its lines (`ScenarioRun`), and the run
(`RunReport`) every front end reports, records and keeps (engine/runs/session.py)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.result import ScenarioResult, TestCaseStatus
from ..core.usage import Usage
from ..executor import Ending
from ..history.payload import new_run_id
from ..settings import Settings
from ..spec.document import Document
from ..spec.scenario_analysis import ScenarioEntry


@dataclass
class ScenarioRun:
    """A scenario's result with where it (and each of its checks) is written.

    Only plain values (1-based lines, paths as shown), so a run read back from a JSON
    report (`checkspec merge`) is the same thing as one just made.
    """

    path: str
    line: int
    result: ScenarioResult
    identity: str = ""  # stable across machines and runs: shards, --last-failed, merge
    tags: list[str] = field(default_factory=list)
    checks: dict[tuple[int, int], tuple[str, int]] = field(default_factory=dict)  # kind, line
    step_lines: list[int] = field(default_factory=list)
    output: str = ""  # what its code printed
    ending: Ending = Ending.FINISHED
    rerun: str | None = None  # why this is its second run (its worker was lost), if so
    # With --repeat K: {"runs", "passed", "rate", "flaky", "statuses", "checks"} (repeat.py)
    repeats: dict[str, Any] | None = None

    @classmethod
    def of(
        cls,
        document: Document,
        entry: ScenarioEntry,
        result: ScenarioResult,
        output: str = "",
        ending: Ending = Ending.FINISHED,
        rerun: str | None = None,
        *,
        identity: str,
    ) -> ScenarioRun:
        steps = entry.node.get("steps") or entry.node.get("interactions")
        step_lines = (
            [item.range.start.line + 1 for item in steps.items]
            if steps is not None and steps.kind == "sequence"
            else []
        )
        return cls(
            path=document.path,
            line=entry.head.start.line + 1,
            result=result,
            identity=identity,
            tags=list(entry.tags),
            checks={(c.step, c.index): (c.kind, c.head.start.line + 1) for c in entry.checks},
            step_lines=step_lines,
            output=output,
            ending=ending,
            rerun=rerun,
        )

    def check_at(self, step: int, index: int) -> tuple[str, int] | None:
        """The check's kind and 1-based line."""
        return self.checks.get((step, index))

    def step_line(self, step: int) -> int:
        return self.step_lines[step] if step < len(self.step_lines) else self.line


def scenario_identity(path: str, entry: ScenarioEntry, root: Path) -> str:
    """`<file relative to the workspace root>::<name>` (`#<index>` when unnamed); the
    root is the project's (engine/runs/project.py `Project.identity`)."""
    resolved = Path(path).resolve()
    try:
        shown = resolved.relative_to(root).as_posix()
    except ValueError:
        shown = resolved.as_posix()
    named = entry.node.kind == "mapping" and entry.node.get("name") is not None
    return f"{shown}::{entry.name if named else f'#{entry.index}'}"


@dataclass
class RunReport:
    runs: list[ScenarioRun] = field(default_factory=list)
    duration_s: float = 0.0
    interrupted: bool = False
    signal: int | None = None  # what interrupted it (SIGINT, SIGTERM, SIGHUP)
    shard: tuple[int, int] | None = None  # (K, N) of `--shard K/N`
    selected: int | None = None  # scenarios selected before sharding (all shards together)
    # What the run's record says of it (engine/history/payload.py's "run" object).
    run_id: str = field(default_factory=lambda: new_run_id())
    started: float = field(default_factory=time.time)  # epoch seconds
    source: str = "cli"  # cli | pytest | editor
    target: str | None = None
    settings: Settings | None = None
    root: Path | None = None  # the workspace root (None: the current folder)
    repeat: int = 1
    min_pass_rate: float = 1.0
    payload: dict[str, Any] | None = field(default=None, repr=False, compare=False)  # built once

    def count(self, status: TestCaseStatus) -> int:
        return sum(1 for r in self.runs if r.result.status is status)

    @property
    def usage(self) -> Usage:
        """What the run's model calls cost, all scenarios together."""
        return Usage.total(r.result.usage for r in self.runs)

    @property
    def status(self) -> TestCaseStatus:
        statuses = {r.result.status for r in self.runs}
        for status in (TestCaseStatus.ERROR, TestCaseStatus.FAIL):
            if status in statuses:
                return status
        return TestCaseStatus.PASS
