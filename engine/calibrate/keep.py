"""A calibration kept in the workspace's history, beside the runs; and what dropped since
the one before. Never raises: a calibration's exit code does not depend on its history."""

from __future__ import annotations

import sys
from contextlib import closing
from pathlib import Path
from typing import Any, TextIO

from ..history.calibrations import agreement_drops
from ..settings import Settings


def keep_calibration(
    data: dict[str, Any], settings: Settings, root: Path | None, stderr: TextIO | None = None
) -> list[dict[str, Any]]:
    """Save the calibration (unless the settings say not to keep history); the judges
    whose agreement dropped since the previous calibration kept."""
    out = stderr or sys.stderr
    if not settings.history:
        return []
    from ..history.store import HistoryStore, history_path

    path = history_path(root)
    try:
        with closing(HistoryStore(path, stderr=out)) as store:
            previous = store.calibrations(limit=1)
            store.save_calibration(data, max_kept=settings.history_max_runs)
    except Exception as exc:
        print(f"checkspec: the calibration was not kept in {path}: {exc}", file=out)
        return []
    if not previous:
        return []
    kept = [
        {k: v for k, v in judge.items() if k in ("judge", "agreement")}
        for judge in data.get("judges") or []
    ]
    return agreement_drops(previous[0]["judges"], kept)
