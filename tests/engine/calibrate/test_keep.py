"""A calibration kept in the workspace's history (engine/calibrate/keep.py): the judges
whose agreement dropped since the one kept before; nothing kept when the settings keep
no history; a history that cannot be written said in one line, never an exception (a
calibration's exit code does not depend on its history)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from checkspec.engine.calibrate.keep import keep_calibration
from checkspec.engine.history.store import HistoryStore, history_path
from checkspec.engine.settings import Settings


def calibration(cal_id: str, started: str, agreement: float) -> dict[str, Any]:
    return {
        "format": "checkspec-calibration/1",
        "calibration": {"id": cal_id, "started": started},
        "judges": [{"judge": "llm_judge @ m [p]", "agreement": agreement, "n": 4}],
    }


def test_a_drop_since_the_calibration_kept_before_is_returned(tmp_path: Path) -> None:
    settings = Settings(history=True)
    first = keep_calibration(calibration("c1", "2026-12-02T10:00:00Z", 0.75), settings, tmp_path)
    assert first == []  # nothing before it
    second = keep_calibration(calibration("c2", "2026-12-03T10:00:00Z", 0.5), settings, tmp_path)
    assert [(d["judge"], d["before"], d["after"]) for d in second] == [
        ("llm_judge @ m [p]", 0.75, 0.5)
    ]
    with HistoryStore(history_path(tmp_path)) as store:
        assert [c["id"] for c in store.calibrations()] == ["c2", "c1"]


def test_nothing_is_kept_without_a_history(tmp_path: Path) -> None:
    data = calibration("c1", "2026-12-02T10:00:00Z", 0.75)
    assert keep_calibration(data, Settings(history=False), tmp_path) == []
    assert not (tmp_path / ".checkspec").exists()


def test_a_history_that_cannot_be_written_is_said_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "a-file"
    root.write_text("not a folder")
    said = io.StringIO()
    data = calibration("c1", "2026-12-02T10:00:00Z", 0.75)
    assert keep_calibration(data, Settings(history=True), root, stderr=said) == []
    (line,) = said.getvalue().splitlines()
    assert line.startswith(f"checkspec: the calibration was not kept in {history_path(root)}: ")
