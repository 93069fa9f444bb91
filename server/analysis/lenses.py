"""Code lenses: run one scenario, or every scenario of the file."""

from __future__ import annotations

from dataclasses import dataclass

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.kinds import FileKind
from checkspec.engine.spec.problems import Range

RUN_SCENARIO = "checkspec.runScenario"  # arguments: [uri, scenario index]
RUN_FILE = "checkspec.runFile"  # arguments: [uri]


@dataclass(frozen=True)
class Lens:
    range: Range
    title: str
    command: str
    scenario: int | None = None  # the scenario index, for RUN_SCENARIO


def code_lenses(document: Document) -> list[Lens]:
    """A lens on each runnable scenario's name; "Run all" on line 1 of multi-scenario files.

    Invalid scenarios get no lens: their problems say why they cannot run.
    """
    runnable = [entry for entry in document.scenarios if entry.scenario is not None]
    lenses = []
    if runnable and document.kind is not FileKind.SCENARIO:  # a scenario file holds one
        lenses.append(Lens(Range.point(0, 0), f"▶ Run all ({len(runnable)})", RUN_FILE))
    for entry in runnable:
        lenses.append(Lens(entry.head, "▶ Run scenario", RUN_SCENARIO, entry.index))
    return lenses
