"""`checkspec comment` inserts in the file's own list and quoting style (issue 35 item 8f)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]

FLOW = """name: d
scenarios:
  - name: 'first one'
    tags: ['a b', c]
    interactions:
      - input: {messages: [{role: user, content: 'Hi: there'}]}
        checks: [{identifier: string_matching, params: {keyword: 'x y'}}]
"""
BLOCK = """name: d
scenarios:
  - name: first one
    tags:
      - a
    interactions:
      - input: {messages: [{role: user, content: Hi}]}
"""


def comment(folder: Path, text: str) -> str:
    path = folder / "d.dataset.yaml"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [*CLI, "comment", "d.dataset.yaml", "Looks good: ship it", "--author", "Ann Lee"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return path.read_text(encoding="utf-8")


def test_a_flow_single_quoted_file_gets_a_flow_single_quoted_comment(tmp_path: Path) -> None:
    after = comment(tmp_path, FLOW)
    added = [line for line in after.splitlines() if line not in FLOW.splitlines()]
    assert len(added) == 1 and "comments: [{" in added[0], after
    assert "'Looks good: ship it'" in added[0] and '"' not in added[0]
    data = yaml.safe_load(after)["scenarios"][0]["comments"][0]
    assert data["content"] == "Looks good: ship it" and data["author"] == "Ann Lee"


def test_a_block_file_gets_a_block_comment(tmp_path: Path) -> None:
    after = comment(tmp_path, BLOCK)
    assert "comments:\n      - " in after or "comments:\n    - " in after, after
    assert yaml.safe_load(after)["scenarios"][0]["comments"][0]["content"] == "Looks good: ship it"
