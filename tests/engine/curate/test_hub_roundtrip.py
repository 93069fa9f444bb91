"""`hub export`, `hub import`, `hub export` gives the first export byte for byte (issue 35
item 8): the Hub's id, dataset_id and timestamps are kept in annotations.hub by import."""

from __future__ import annotations

import json
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


# Every string a Hub scenario may hold, the line separators YAML readers take for line
# breaks (U+0085, U+2028, U+2029) first.
TEXTS = [
    "a\u2028b",
    "c\u2029d",
    "e\x85f",
    "\u2028",
    "ends\u2028",
    "multi\nline\u2028and\u2029more\x85",
    "crlf\r\nline",
    "tab\tand trailing ",
    " leading",
    "\ufeffbom",
    "nul\x00and\x1bescape",
    "é\u00a0ü and 😀",
    "#not a comment",
    "key: value",
    "yes",
]


@pytest.mark.parametrize("to", ["b.dataset.yaml", "b.dataset.jsonl", "b.dataset.json"])
@pytest.mark.parametrize("form", ["jsonl", "json"])
def test_every_string_survives_import_and_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, to: str, form: str
) -> None:
    monkeypatch.chdir(tmp_path)
    rows = [
        {
            "name": f"row {n} {text}",
            "tags": [text],
            "interactions": [
                {
                    "input": {"messages": [{"role": "user", "content": text}]},
                    "output": {"response": {"role": "assistant", "content": text}},
                    "checks": [{"check_id": "equals", "spec": {"expected_value": text}}],
                }
            ],
        }
        for n, text in enumerate(TEXTS)
    ]
    if form == "json":
        Path("in.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1), "utf-8")
    else:
        Path("in.json").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    assert main(["hub", "import", "in.json", "--to", to]) == 0
    assert main(["validate", to]) == 0
    assert main(["hub", "export", to, "-o", "out.jsonl"]) == 0
    back = [json.loads(line) for line in Path("out.jsonl").read_text("utf-8").split("\n") if line]
    for row, again in zip(rows, back, strict=True):
        turn, turn_again = row["interactions"][0], again["interactions"][0]
        assert again["name"] == row["name"] and again["tags"] == row["tags"]
        assert turn_again["input"] == turn["input"] and turn_again["output"] == turn["output"]
        assert turn_again["checks"][0]["spec"] == turn["checks"][0]["spec"]
