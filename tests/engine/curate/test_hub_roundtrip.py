"""`hub export`, `hub import`, `hub export` gives the first export byte for byte (issue 35
item 8): the Hub's id, dataset_id and timestamps are kept in annotations.hub by import."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from checkspec.engine.cli.main import main

DATASET = """\
name: faq
tags: [support]
scenarios:
  - name: hours
    annotations: {generated: {source: kb/hours.md}}
    comments:
      - {content: looks right, author: ann, created: "2026-01-02T03:04:05Z"}
    interactions:
      - input: {messages: [{role: user, content: When are you open?}]}
        output: {response: {role: assistant, content: "9:00-18:00"}}
        checks:
          - {identifier: regex_matching, params: {pattern: '\\d+:\\d+'}}
  - interactions:
      - input: {messages: [{role: user, content: Refunds?}]}
"""


@pytest.mark.parametrize("to", ["b.dataset.yaml", "b.dataset.jsonl", "b.dataset.json"])
def test_export_import_export_is_byte_stable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, to: str
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.dataset.yaml").write_text(DATASET)
    os.utime("a.dataset.yaml", (1_600_000_000, 1_600_000_000))  # an old file: other stamps
    assert main(["hub", "export", "a.dataset.yaml", "-o", "first.jsonl"]) == 0
    assert main(["hub", "import", "first.jsonl", "--to", to]) == 0
    assert main(["validate", to]) == 0
    assert main(["hub", "export", to, "-o", "second.jsonl"]) == 0
    assert Path("second.jsonl").read_bytes() == Path("first.jsonl").read_bytes()
