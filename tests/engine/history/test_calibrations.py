"""Calibrations kept beside the runs (issue 40 item 4): a table made on first use (a
history without it is read as it is), newest first, and which judges' agreement dropped."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from checkspec.engine.calibrate.run import Calibration
from checkspec.engine.history import payload as payload_module
from checkspec.engine.history.calibrations import (
    agreement_drops,
    drop_lines,
    drops_between,
    in_force,
)
from checkspec.engine.history.payload import run_info
from checkspec.engine.history.store import SCHEMA_VERSION, HistoryStore
from checkspec.engine.runs.report import RunReport
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


def test_a_calibration_made_in_the_second_a_run_started_but_after_it_is_not_in_force(
    tmp_path: Path,
) -> None:
    # A quick run, then a calibration, within one second: kept to the millisecond, the
    # calibration comes after the run (compare once took it as in force at both runs).
    with HistoryStore(tmp_path / "history.db") as store:
        store.save_calibration(calibration("c1", "2026-12-02T10:00:00.100+00:00", 0.75))
        store.save_calibration(calibration("c2", "2026-12-02T10:00:00.900+00:00", 0.5))
        kept = store.calibrations()
        assert in_force(kept, "2026-12-02T10:00:00.400+00:00")["id"] == "c1"
        assert in_force(kept, "2026-12-02T10:00:00.050+00:00") is None
        # Old records, kept to the second, and calibrations written with Z still compare.
        assert in_force(kept, "2026-12-02T10:00:01+00:00")["id"] == "c2"
        assert in_force(kept, "2026-12-02T10:00:01Z")["id"] == "c2"
        assert in_force(kept, "not a time") is None
        drops = drops_between(store, "2026-12-02T10:00:00.400+00:00", "2026-12-02T10:00:01+00:00")
        assert [d["judge"] for d in drops] == ["llm_judge @ m [p]"]


def test_runs_and_calibrations_are_kept_to_the_millisecond(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(payload_module, "git_state", lambda root: None)  # no git process
    info = run_info(RunReport(runs=[], started=1_700_000_000.25), {"pass": 0})
    assert info["started"] == "2023-11-14T22:13:20.250+00:00"
    made = Calibration(judges=[], labels=[], started=1_700_000_000.25).to_json()
    assert made["calibration"]["started"] == "2023-11-14T22:13:20.250+00:00"
