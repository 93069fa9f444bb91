"""Curating a JSON Lines dataset: the node limit is each row's (issue 41), and a row over
it is refused at its line with the limit it crossed, not the budget left (issue 36)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkspec.engine.curate.files import CurateError, read_spec
from checkspec.engine.spec import source

ROW = {"input": {"messages": [{"role": "user", "content": "hi"}]}, "tags": ["a", "b"]}


def test_many_rows_are_not_summed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "MAX_NODES", 100)
    path = tmp_path / "d.dataset.jsonl"
    path.write_text("".join(json.dumps(ROW) + "\n" for _ in range(12)))
    assert len(read_spec(path).items) == 12


def test_a_row_over_the_limit_is_named_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(source, "MAX_NODES", 100)
    path = tmp_path / "d.dataset.jsonl"
    rows = [ROW] * 6 + [{**ROW, "tags": [str(n) for n in range(200)]}] + [ROW] * 3
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with pytest.raises(CurateError) as raised:
        read_spec(path)
    assert f"{path}:7:" in str(raised.value)
    assert "row holds more than 100 JSON nodes" in str(raised.value)
