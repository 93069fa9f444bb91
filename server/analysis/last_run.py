"""The last run of each scenario, kept with the scenario's text so it is shown only while
that text is unchanged.

A result belongs to the text the scenario had when it ran: an edit elsewhere in the file
moves it with the scenario, an edit to the scenario itself makes it stale (not shown).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.lines import split_lines
from checkspec.engine.spec.scenario_analysis import ScenarioEntry


@dataclass(frozen=True)
class LastRun:
    text: str  # the scenario's text when it ran
    summary: dict[str, Any]  # run_summary(..., transcript=True) and the run's output
    # What the agent answered in each interaction, as the run got it (None: replayed or not
    # finished): a label on a scenario without recorded answers records these first.
    outputs: tuple[Any, ...] | None = None


def scenario_text(entry: ScenarioEntry, lines: list[str]) -> str:
    """The text of a scenario (its node's range), for telling whether it changed."""
    start, end = entry.node.range.start, entry.node.range.end
    if start.line >= len(lines):
        return ""
    if start.line == end.line:
        return lines[start.line][start.character : end.character]
    chunk = [lines[start.line][start.character :], *lines[start.line + 1 : end.line]]
    if end.line < len(lines):
        chunk.append(lines[end.line][: end.character])
    return "\n".join(chunk)


def current_runs(
    document: Document, text: str, runs: dict[int, LastRun]
) -> list[tuple[ScenarioEntry, LastRun]]:
    """Each scenario of `document` whose last run is still true of its text."""
    if not runs:
        return []
    lines = split_lines(text)
    by_text: dict[str, LastRun] = {run.text: run for run in runs.values()}
    found = []
    for entry in document.scenarios:
        own = scenario_text(entry, lines)
        same = runs.get(entry.index)
        run = same if same is not None and same.text == own else by_text.get(own)
        if run is not None:
            found.append((entry, run))
    return found


def run_of(document: Document, text: str, runs: dict[int, LastRun], index: int) -> LastRun | None:
    for entry, run in current_runs(document, text, runs):
        if entry.index == index:
            return run
    return None
