"""The arithmetic of a calibration, pure: no I/O, no models.

A failing verdict is the positive class (what a judge is there to catch), so:

```
                     judge: fail     judge: pass
  label: fail            tp              fn
  label: pass            fp              tn
```

agreement = (tp + tn) / n; precision = tp / (tp + fp); recall = tp / (tp + fn);
Cohen's kappa = (po - pe) / (1 - pe), with po the agreement and pe the agreement
expected by chance from each side's share of `fail` ((tp+fp)(tp+fn) + (fn+tn)(fp+tn)) / n².
A ratio whose denominator is 0 is None (undefined), never a made-up 0 or 1; kappa when
pe = 1 (both sides gave one same verdict every time) is None too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PASS, FAIL = "pass", "fail"


@dataclass(frozen=True)
class Confusion:
    """The confusion matrix of labels (truth) against a judge's verdicts."""

    tp: int = 0  # label fail, judge fail
    fp: int = 0  # label pass, judge fail
    fn: int = 0  # label fail, judge pass
    tn: int = 0  # label pass, judge pass

    @classmethod
    def of(cls, pairs: Iterable[tuple[str, str]]) -> Confusion:
        """From (label, verdict) pairs, each `pass` or `fail`."""
        tp = fp = fn = tn = 0
        for label, verdict in pairs:
            if label not in (PASS, FAIL) or verdict not in (PASS, FAIL):
                raise ValueError(
                    f"a label and a verdict are pass or fail, not {label!r}, {verdict!r}"
                )
            if label == FAIL:
                tp, fn = (tp + 1, fn) if verdict == FAIL else (tp, fn + 1)
            else:
                fp, tn = (fp + 1, tn) if verdict == FAIL else (fp, tn + 1)
        return cls(tp, fp, fn, tn)

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def agreement(self) -> float | None:
        return _ratio(self.tp + self.tn, self.n)

    @property
    def precision(self) -> float | None:
        """Of the judge's fails, the share a person also failed."""
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        """Of the person's fails, the share the judge caught."""
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def kappa(self) -> float | None:
        return cohen_kappa(self)

    def to_json(self) -> dict[str, int]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn}


def cohen_kappa(matrix: Confusion) -> float | None:
    """Cohen's kappa of a 2x2 confusion matrix; None when undefined (no pairs, or chance
    agreement of 1: both sides always said the same one verdict)."""
    n = matrix.n
    if n == 0:
        return None
    observed = (matrix.tp + matrix.tn) / n
    judge_fail, label_fail = matrix.tp + matrix.fp, matrix.tp + matrix.fn
    judge_pass, label_pass = matrix.fn + matrix.tn, matrix.fp + matrix.tn
    chance = (judge_fail * label_fail + judge_pass * label_pass) / (n * n)
    if chance == 1:
        return None
    return (observed - chance) / (1 - chance)


@dataclass(frozen=True)
class Consistency:
    """With `--repeat K`: how many labelled checks had K verdicts all the same."""

    checks: int  # labelled checks with at least one verdict
    stable: int  # of which every verdict was the same
    flipped: tuple[int, ...]  # the indexes (in the given order) whose verdicts differ

    @property
    def share(self) -> float | None:
        return _ratio(self.stable, self.checks)


def consistency(verdicts: Sequence[Sequence[str]]) -> Consistency:
    """Each labelled check's K verdicts (pass, fail, or error) -> its consistency. A check
    with no verdict is left out; an error among them counts as a different verdict."""
    counted = stable = 0
    flipped: list[int] = []
    for index, runs in enumerate(verdicts):
        if not runs:
            continue
        counted += 1
        if len(set(runs)) == 1:
            stable += 1
        else:
            flipped.append(index)
    return Consistency(counted, stable, tuple(flipped))


def _ratio(top: int, bottom: int) -> float | None:
    return top / bottom if bottom else None
