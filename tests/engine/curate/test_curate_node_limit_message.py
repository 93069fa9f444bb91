"""Curating a JSON Lines dataset over the node limit says the file's limit, not the budget
that was left when the limit was crossed (issue 36)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkspec.engine.curate import files
from checkspec.engine.curate.files import CurateError, read_spec


def test_the_message_names_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "MAX_NODES", 100)
    path = tmp_path / "d.dataset.jsonl"
    row = {"input": {"messages": [{"role": "user", "content": "hi"}]}, "tags": ["a", "b"]}
    path.write_text("".join(json.dumps(row) + "\n" for _ in range(12)))
    with pytest.raises(CurateError) as raised:
        read_spec(path)
    assert "more than 100 YAML nodes" in str(raised.value)
