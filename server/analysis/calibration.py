"""What the last calibration (`checkspec calibrate`, kept in `.checkspec/history.db`)
says of a labelled check: its judge's agreement with the labels, and whether the judge
agreed on this case. Shown in hover on a check's `expect:`.

Pure: reads the SQLite file, runs nothing; a history that cannot be read says nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checkspec.engine.spec.document import Document
from checkspec.engine.spec.lines import index_of
from checkspec.engine.spec.problems import Position, Range, TextEdit
from checkspec.engine.spec.scenario_analysis import CheckEntry, ScenarioEntry

from .rows import scenarios_near

CALIBRATIONS_LOOKED_AT = 10  # the newest calibrations searched for one judging the check


@dataclass(frozen=True)
class LabelAt:
    """A labelled check under the cursor: its scenario, its place and its `expect:`."""

    entry: ScenarioEntry
    check: CheckEntry
    expect: str
    range: Range  # the `expect:` entry


def label_at(document: Document, position: Position) -> LabelAt | None:
    """The labelled top-level check whose `expect:` line holds `position`."""
    for entry in scenarios_near(document, position.line):
        if not entry.range.contains(position):
            continue
        for check in entry.checks:
            node = check.node
            if node.kind != "mapping" or "expect" not in node.value:
                continue
            key = node.key_node("expect")
            value = node.get("expect")
            if key is None or value is None or key.line != position.line:
                continue
            return LabelAt(
                entry, check, str(node.value["expect"]), Range(key.range.start, value.range.end)
            )
    return None


def last_calibration_of(
    history: Path, identity: str, step: int, index: int
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]] | None:
    """(the calibration, its judge, the case) of the newest calibration that judged the
    check at (`step`, `index`) of scenario `identity`; None when none did."""
    if not history.exists():
        return None
    import sqlite3

    from checkspec.engine.history.store import HistoryStore

    try:
        with closing(HistoryStore(history)) as store:
            for summary in store.calibrations(CALIBRATIONS_LOOKED_AT):
                data = store.load_calibration(summary["id"])
                for judge in data.get("judges") or []:
                    for case in judge.get("cases") or []:
                        if (case.get("id"), case.get("step"), case.get("index")) == (
                            identity,
                            step,
                            index,
                        ):
                            return data, judge, case
    except (sqlite3.Error, OSError, ValueError):
        return None
    return None


def calibration_markdown(
    calibration: dict[str, Any], judge: dict[str, Any], case: dict[str, Any]
) -> str:
    """The hover text: the judge's numbers, then this case."""
    meta = calibration.get("calibration") or {}

    def pct(value: Any) -> str:
        return "-" if not isinstance(value, int | float) else f"{value * 100:.1f}%"

    kappa = judge.get("kappa")
    lines = [
        f"**Last calibration** `{_code(meta.get('id'))}` ({_escape(str(meta.get('started') or ''))})",
        "",
        f"Judge `{_code(judge.get('judge'))}`: agreement {pct(judge.get('agreement'))} "
        f"on {judge.get('n', 0)} label(s), kappa "
        + ("-" if not isinstance(kappa, int | float) else f"{kappa:.3f}"),
        "",
    ]
    verdict, expect = case.get("verdict"), case.get("expect")
    if case.get("agrees") is True:
        lines.append(f"This case: the judge agreed ({_escape(str(verdict))}).")
    elif case.get("agrees") is False:
        lines.append(
            f"This case: **the judge disagreed**: labelled {_escape(str(expect))}, "
            f"judge said {_escape(str(verdict))}."
        )
    else:
        lines.append(f"This case: not judged ({_escape(str(verdict))}).")
    reason = case.get("reason")
    if isinstance(reason, str) and reason.strip():
        lines += ["", "> " + _escape(" ".join(reason.split())[:500])]
    return "\n".join(lines)


def _escape(text: str) -> str:
    return "".join("\\" + c if c in "\\`*_[]<>#|" else c for c in text)


def _code(value: Any) -> str:
    return str(value).replace("`", "'")


@dataclass(frozen=True)
class LabelAction:
    """A quick fix writing a person's label on a check (the curation edit)."""

    title: str
    edits: tuple[TextEdit, ...]


def label_actions(
    text: str,
    path: Path,
    document: Document,
    within: Range,
    verdicts: Mapping[tuple[int, int, int], str],
    history: Path | None = None,
    answers: Mapping[int, Sequence[Any]] | None = None,
    root: Path | None = None,
) -> list[LabelAction]:
    """On the checks whose `kind:` line the range touches: "Label as correct / incorrect"
    of their last run's verdict (`verdicts`: (scenario, step, index) -> pass | fail), and
    on a label the last calibration's judge disagreed with, "Label as the judge said".

    A label needs the answer it judges recorded in the file: on a scenario that runs
    against its target, the same edit records that run's answers first (`answers`:
    scenario index -> each interaction's outputs, of the run that gave the verdict)."""
    from checkspec.engine.calibrate.labels import recorded_up_to
    from checkspec.engine.core.check import Check
    from checkspec.engine.curate.files import CurateError, parse_spec
    from checkspec.engine.curate.label import label_edits

    found: list[LabelAction] = []
    spec = None
    for entry in document.scenarios:
        if entry.range.end.line < within.start.line or entry.range.start.line > within.end.line:
            continue
        for check in entry.checks:
            line = check.head.start.line
            if not within.start.line <= line <= within.end.line:
                continue
            cls: type[Check] | None = Check.kind_class(check.kind)
            if cls is None or not cls.may_call_model():
                continue
            node = check.node
            current = node.value.get("expect") if node.kind == "mapping" else None
            wanted: list[tuple[str, str, bool]] = []  # title, label, records answers first
            verdict = verdicts.get((entry.index, check.step, check.index))
            built = entry.scenario
            recorded = bool(built and recorded_up_to(built, check.step))
            answered = (answers or {}).get(entry.index)
            records = (
                not recorded
                and answered is not None
                and built is not None
                and recorded_up_to(built, check.step, outputs=False)
            )
            if verdict in ("pass", "fail") and (recorded or records):
                other = "fail" if verdict == "pass" else "pass"
                also = ", recording the run's answers" if records else ""
                wanted += [
                    (
                        f"Label as correct: the judge's {verdict} (expect: {verdict}{also})",
                        verdict,
                        records,
                    ),
                    (
                        f"Label as incorrect: the judge's {verdict} (expect: {other}{also})",
                        other,
                        records,
                    ),
                ]
            if current in ("pass", "fail") and history is not None:
                from checkspec.engine.runs.report import scenario_identity

                # Named from the workspace root (`root`: the document's; none, here).
                identity = scenario_identity(document.path, entry, root or Path.cwd())
                last = last_calibration_of(history, identity, check.step, check.index)
                said = last[2].get("verdict") if last is not None else None
                if last is not None and last[2].get("agrees") is False and said in ("pass", "fail"):
                    wanted.append((f"Label as the judge said (expect: {said})", str(said), False))
            for title, label, first_record in wanted:
                if label == current:
                    continue
                if spec is None:
                    try:
                        spec = parse_spec(path, b"", text)
                    except CurateError:
                        return found
                try:
                    given = (answered or ()) if first_record else None
                    made = label_edits(spec, line, label, given).edits
                except CurateError:
                    continue
                lines = index_of(text)
                edits = tuple(
                    TextEdit(Range(lines.position(e.start), lines.position(e.end)), e.new)
                    for e in made
                )
                if edits:
                    found.append(LabelAction(title, edits))
    return found
