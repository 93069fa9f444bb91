"""Calibrations kept beside the runs (issue 40 item 4): a table made on first use (a
history without it is read as it is), newest first, and which judges' agreement dropped."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from checkspec.engine.history.calibrations import (
    agreement_drops,
    drop_lines,
    drops_between,
    in_force,
)
from checkspec.engine.history.store import SCHEMA_VERSION, HistoryStore
from tests.support.history_payloads import payload


def calibration(cal_id: str, started: str, agreement: float) -> dict[str, Any]:
    return {
        "format": "checkspec-calibration/1",
        "calibration": {"id": cal_id, "started": started},
        "judges": [
            {"judge": "llm_judge @ m [p]", "agreement": agreement, "n": 4, "cases": [{"x": 1}]},
            {"judge": "toxicity @ m [built-in]", "agreement": 1.0, "n": 2},
        ],
    }


def test_a_history_of_runs_gains_calibrations_without_losing_a_run(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    with HistoryStore(path) as store:
        store.save(payload("r1"))
        assert store.calibrations() == []  # no table yet: nothing, no error
    with HistoryStore(path) as store:
        store.save_calibration(calibration("c1", "2026-12-02T10:00:00Z", 0.75))
        store.save_calibration(calibration("c2", "2026-12-03T10:00:00Z", 0.5))
        assert [c["id"] for c in store.calibrations()] == ["c2", "c1"]
        assert store.calibrations()[0]["judges"][0] == {
            "judge": "llm_judge @ m [p]",
            "agreement": 0.5,
            "n": 4,
        }
        assert store.load_calibration("c1")["judges"][0]["cases"] == [{"x": 1}]
        assert [r.id for r in store.runs()] == ["r1"]
    with sqlite3.connect(path) as db:  # the schema version is unchanged
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    with HistoryStore(path) as store:
        store.save_calibration(calibration("c3", "2026-12-04T10:00:00Z", 0.5), max_kept=2)
        assert [c["id"] for c in store.calibrations()] == ["c3", "c2"]


def test_drops_are_judges_whose_agreement_fell() -> None:
    before = calibration("a", "", 0.75)["judges"]
    after = calibration("b", "", 0.5)["judges"]
    drops = agreement_drops(before, after)
    assert drops == [{"judge": "llm_judge @ m [p]", "before": 0.75, "after": 0.5}]
    assert agreement_drops(after, before) == []
    assert drop_lines(drops) == ["judge agreement dropped: llm_judge @ m [p]: 75.0% -> 50.0%"]


def test_the_calibration_in_force_at_each_run(tmp_path: Path) -> None:
    with HistoryStore(tmp_path / "history.db") as store:
        store.save_calibration(calibration("c1", "2026-12-02T10:00:00Z", 0.75))
        store.save_calibration(calibration("c2", "2026-12-03T10:00:00Z", 0.5))
        kept = store.calibrations()
        assert in_force(kept, "2026-12-01T00:00:00+00:00") is None
        assert in_force(kept, "2026-12-02T12:00:00+00:00")["id"] == "c1"
        assert drops_between(store, "2026-12-02T12:00:00+00:00", "2026-12-03T12:00:00+00:00")
        assert drops_between(store, "2026-12-03T11:00:00+00:00", "2026-12-03T12:00:00+00:00") == []
