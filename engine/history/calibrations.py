"""Judge calibrations over time: which judges' agreement with the labels dropped.

`checkspec calibrate` keeps each calibration in the history database beside the runs
(store.py, `save_calibration`); this compares two of them, judge by judge (check kind x
model x prompt), for `checkspec calibrate` (against the one before) and `checkspec
compare` (the calibrations in force when each run was made).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any


def agreement_drops(
    before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Judges (as the calibrations table keeps them) whose agreement is lower `after`
    than `before`: {"judge", "before", "after"}, in `after`'s order."""
    earlier = {
        j.get("judge"): j.get("agreement")
        for j in before
        if isinstance(j.get("agreement"), int | float)
    }
    drops = []
    for judge in after:
        old, new = earlier.get(judge.get("judge")), judge.get("agreement")
        if isinstance(old, int | float) and isinstance(new, int | float) and new < old:
            drops.append({"judge": judge.get("judge"), "before": old, "after": new})
    return drops


def _instant(text: Any) -> datetime | None:
    """An ISO 8601 time as kept (`...Z` or `...+00:00`, seconds or milliseconds); None
    when it is not one. A time without an offset is UTC."""
    try:
        moment = datetime.fromisoformat(str(text))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def in_force(calibrations: Sequence[Mapping[str, Any]], moment: str) -> Mapping[str, Any] | None:
    """The newest calibration made at or before `moment` (an ISO 8601 UTC time), of
    calibrations listed newest first. Times compare as instants, to the millisecond both
    are kept to: a calibration made in the second a run started, after it, is not in
    force at that run."""
    when = _instant(moment)
    if when is None:
        return None
    for calibration in calibrations:
        made = _instant(calibration.get("started"))
        if made is not None and made <= when:
            return calibration
    return None


def drop_lines(drops: Sequence[Mapping[str, Any]]) -> list[str]:
    """`judge agreement dropped: JUDGE: 90.0% -> 70.0%`, one line a judge."""
    return [
        f"judge agreement dropped: {d['judge']}: {d['before'] * 100:.1f}% -> {d['after'] * 100:.1f}%"
        for d in drops
    ]


def drops_between(store: Any, base_started: str, head_started: str) -> list[dict[str, Any]]:
    """Judges whose agreement dropped from the calibration in force at the base run to
    the one in force at the head run (none when the same one, or none, holds)."""
    kept = store.calibrations()
    base, head = in_force(kept, base_started), in_force(kept, head_started)
    if base is None or head is None or base.get("id") == head.get("id"):
        return []
    return agreement_drops(base["judges"], head["judges"])
