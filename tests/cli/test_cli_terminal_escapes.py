"""Names, tags, file names and outputs reach the terminal without control characters
(issue 36): `run`, `list` and `generate` show an escape sequence as `\\x1b...` text, so a
scenario cannot retitle, clear or recolour the terminal of whoever runs it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from checkspec.engine.cli.main import main

ESC = "\x1b]0;pwned\x07\x1b[2J\u202e"
SUITE = f"""\
name: s
scenarios:
  - name: "one {ESC.encode("unicode_escape").decode()}"
    target: python:agent:answer
    tags: ["t\\x1b[31m"]
    steps:
      - interacts: [{{inputs: hi}}]
        checks: [{{kind: string_matching, keyword: ok}}]
"""
AGENT = "def answer(question):\n    return 'nope \\x1b[2J'\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "checkspec.yaml").write_text("history: false\n")
    (tmp_path / "s.suite.yaml").write_text(SUITE)
    (tmp_path / "agent.py").write_text(AGENT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _clean(text: str) -> bool:
    return not any(ch in text for ch in "\x1b\x07\u202e")


def test_run_list_and_list_tags_show_escapes_as_text(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", ".", "--format", "text"]) == 1
    out = capsys.readouterr()
    assert "one \\x1b]0;pwned\\x07" in out.out and _clean(out.out) and _clean(out.err)
    assert main(["list", "scenarios", "."]) == 0
    out = capsys.readouterr()
    assert "\\x1b[2J\\u202e" in out.out and _clean(out.out)
    assert main(["list", "tags", "."]) == 0
    out = capsys.readouterr()
    assert "t\\x1b[31m" in out.out and _clean(out.out)


@pytest.mark.skipif(os.name == "nt", reason="control characters in file names")
def test_generate_shows_a_file_name_with_escapes_as_text(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = project / "kb"
    kb.mkdir()
    (kb / "guide.md").write_text("Open the app and sign in.\n")
    (kb / "\x1b[31mred.md").write_text("")  # skipped with a warning naming it
    main(["generate", "--from-docs", str(kb), "--list-topics"])
    err = capsys.readouterr().err
    assert "\\x1b[31mred.md: skipped" in err and _clean(err)
