"""The calibration the labelled checks make: each label's verdicts (`Judged`), grouped
by judge (`Judge`), and the whole (`Calibration`).

The labels' scenarios (labels.py plans them) are run by the run session
(engine/runs/calibration.py: one session a judge model, each label's scenario a todo
entry run `--repeat` times), for `checkspec calibrate` and the editor's calibrate alike;
this module only reads their results (`judged_from`, `judges_of`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.result import ScenarioResult
from ..core.usage import Usage
from ..history.payload import kept_time, new_run_id
from .labels import Label
from .metrics import FAIL, PASS, Confusion, Consistency, consistency

FORMAT = "checkspec-calibration/1"


@dataclass
class Judged:
    """One label as one judge model saw it: its verdicts (one per repeat, in order)."""

    label: Label
    model: str  # the judge's model, as its result says (else as asked)
    verdicts: list[str] = field(default_factory=list)  # pass | fail | error | skip
    reasons: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)

    @property
    def verdict(self) -> str:
        """The verdict compared with the label: the first run's."""
        return self.verdicts[0] if self.verdicts else "skip"

    @property
    def reason(self) -> str:
        return self.reasons[0] if self.reasons else ""

    @property
    def judged(self) -> bool:
        return self.verdict in (PASS, FAIL)

    @property
    def agrees(self) -> bool | None:
        return self.verdict == self.label.expect if self.judged else None

    def to_json(self) -> dict[str, Any]:
        return {
            **self.label.to_json(),
            "model": self.model,
            "verdict": self.verdict,
            "verdicts": list(self.verdicts),
            "agrees": self.agrees,
            "reason": self.reason,
        }


@dataclass
class Judge:
    """One judge: a check kind with a model and a prompt, and the labels it judged."""

    kind: str
    model: str
    prompt: str
    judged: list[Judged] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.kind} @ {self.model} [{self.prompt}]"

    @property
    def confusion(self) -> Confusion:
        return Confusion.of((j.label.expect, j.verdict) for j in self.judged if j.judged)

    @property
    def consistency(self) -> Consistency:
        return consistency([j.verdicts for j in self.judged])

    @property
    def errors(self) -> list[Judged]:
        """Labels the judge gave no verdict on (an error: no model, a provider failing)."""
        return [j for j in self.judged if not j.judged]

    @property
    def disagreements(self) -> list[Judged]:
        return [j for j in self.judged if j.agrees is False]

    @property
    def usage(self) -> Usage:
        return Usage.total(j.usage for j in self.judged)

    def summary(self) -> dict[str, Any]:
        """The numbers (what the history keeps and `--min-*` reads)."""
        matrix = self.confusion
        kept = self.consistency
        return {
            "judge": self.key,
            "check": self.kind,
            "model": self.model,
            "prompt": self.prompt,
            "labels": len(self.judged),
            "n": matrix.n,
            "agreement": _round(matrix.agreement),
            "precision": _round(matrix.precision),
            "recall": _round(matrix.recall),
            "kappa": _round(matrix.kappa),
            "confusion": matrix.to_json(),
            "errors": len(self.errors),
            "consistency": _round(kept.share),
            "cost_usd": self.usage.known_cost,
        }

    def to_json(self, repeat: int) -> dict[str, Any]:
        kept = self.consistency
        summary = self.summary()
        if repeat > 1:
            summary["flips"] = [self.judged[i].label.where for i in kept.flipped]
        else:
            summary.pop("consistency")
        return {
            **summary,
            "usage": self.usage.model_dump(),
            "disagreements": [j.to_json() for j in self.disagreements],
            "not_judged": [j.to_json() for j in self.errors],
            "cases": [j.to_json() for j in self.judged],
        }


@dataclass
class Calibration:
    """A calibration: every judge over the selected labels."""

    judges: list[Judge]
    labels: list[Label]
    repeat: int = 1
    models: list[str | None] = field(default_factory=lambda: [None])
    disabled: int = 0  # labelled checks left out because disabled
    interrupted: bool = False
    id: str = field(default_factory=new_run_id)
    started: float = field(default_factory=time.time)
    duration_s: float = 0.0

    @property
    def usage(self) -> Usage:
        return Usage.total(j.usage for j in self.judges)

    def side_by_side(self) -> list[dict[str, Any]]:
        """Each two judges of one check kind (another model, another prompt) that judged
        labels in common: their numbers on those labels alone, and where they differ."""
        found = []
        for at, first in enumerate(self.judges):
            for second in self.judges[at + 1 :]:
                if first.kind != second.kind:
                    continue
                mine = {_place(j.label): j for j in first.judged}
                theirs = {_place(j.label): j for j in second.judged}
                common = [key for key in mine if key in theirs]
                if not common:
                    continue
                pair = [
                    Judge(judge.kind, judge.model, judge.prompt, [cases[k] for k in common])
                    for judge, cases in ((first, mine), (second, theirs))
                ]
                differ = [
                    {
                        "where": mine[k].label.where,
                        "expect": mine[k].label.expect,
                        "verdicts": [mine[k].verdict, theirs[k].verdict],
                    }
                    for k in common
                    if mine[k].verdict != theirs[k].verdict
                ]
                found.append(
                    {
                        "check": first.kind,
                        "labels": len(common),
                        "judges": [judge.summary() for judge in pair],
                        "differ": differ,
                    }
                )
        return found

    def to_json(self) -> dict[str, Any]:
        started = kept_time(self.started)  # as a run's: `checkspec compare` orders the two
        return {
            "format": FORMAT,
            "calibration": {
                "id": self.id,
                "started": started,
                "duration_s": round(self.duration_s, 3),
                "repeat": self.repeat,
                "models": [m for m in self.models if m],
                "labels": len(self.labels),
                "disabled": self.disabled,
                "interrupted": self.interrupted,
                "cost_usd": self.usage.known_cost,
                "usage": self.usage.model_dump(),
            },
            "judges": [j.to_json(self.repeat) for j in self.judges],
            "side_by_side": self.side_by_side(),
        }


def _place(label: Label) -> tuple[str, int, int]:
    return (label.identity, label.step, label.index)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def verdict_of(result: ScenarioResult, label: Label) -> tuple[str, str, str | None]:
    """(status, reason, model) of the labelled check in its calibration's result."""
    steps = result.steps
    if label.step >= len(steps) or not steps[label.step].results:
        error = next((s.error for s in steps if s.error is not None), None)
        return "error", error.message if error is not None else "the check did not run", None
    step = steps[label.step]
    check = step.results[0]
    status = check.status.value
    reason = check.message or ""
    if status == "skip" and step.error is not None:
        status, reason = "error", step.error.message
    model = check.details.get("model") if isinstance(check.details, dict) else None
    return status, reason, model if isinstance(model, str) and model else None


def judged_from(label: Label, asked: str, results: Sequence[ScenarioResult]) -> Judged:
    """A label as a judge saw it over its runs (in repeat order)."""
    entry = Judged(label, asked)
    for n, result in enumerate(results):
        status, reason, seen = verdict_of(result, label)
        entry.verdicts.append(status)
        entry.reasons.append(reason)
        if seen and n == 0:
            entry.model = seen
        if result.usage is not None:
            entry.usage = entry.usage + result.usage
    return entry


def judges_of(judged: Iterable[Judged]) -> list[Judge]:
    """The judged labels grouped by judge (check kind x model x prompt), in first-seen
    order; a label never run (cancelled) is left out."""
    judges: dict[tuple[str, str, str], Judge] = {}
    for entry in judged:
        if not entry.verdicts:
            continue
        which = (entry.label.kind, entry.model, entry.label.prompt)
        judge = judges.get(which)
        if judge is None:
            judge = judges[which] = Judge(*which)
        judge.judged.append(entry)
    return list(judges.values())
