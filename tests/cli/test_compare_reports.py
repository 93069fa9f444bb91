"""`checkspec compare` of two JSON reports (no history needed): HTML written to a file with
the counts on stderr, a newly failing scenario's exit 1, one report against a history
that has no runs, an output that cannot be written; and `history` over a
history file that is not a database (moved aside, a new history started). In-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import Done, run_main
from tests.support.history_payloads import payload


def cli(root: Path, *args: str) -> Done:
    return run_main(root, *args)


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    (tmp_path / "checkspec.yaml").write_text("jobs: 1\n")
    base = payload("base", {"a.scenario.yaml::one": "pass", "a.scenario.yaml::two": "pass"})
    head = payload("head", {"a.scenario.yaml::one": "fail", "a.scenario.yaml::two": "pass"})
    (tmp_path / "base.json").write_text(json.dumps(base))
    (tmp_path / "head.json").write_text(json.dumps(head))
    return tmp_path


def test_html_comparison_written_to_a_file(reports: Path) -> None:
    done = cli(reports, "compare", "base.json", "head.json", "--format", "html", "-o", "out/c.html")
    assert done.returncode == 1  # one scenario newly fails
    assert "1 newly failing, 0 fixed; wrote out/c.html" in done.stderr
    html = (reports / "out" / "c.html").read_text()
    assert html.lstrip().lower().startswith("<!doctype html") and "a.scenario.yaml" in html
    assert done.stdout == ""


def test_text_comparison_without_a_history(reports: Path) -> None:
    done = cli(reports, "compare", "head.json", "base.json")
    assert done.returncode == 0, done.stderr  # the other way round: one fixed
    assert "one" in done.stdout
    assert not (reports / ".checkspec" / "history.db").exists()


def test_one_report_is_compared_with_the_last_run(reports: Path) -> None:
    done = cli(reports, "compare", "base.json")
    assert done.returncode == 2
    assert "error: no runs yet in" in done.stderr and "run `checkspec run` first" in done.stderr


def test_an_output_that_cannot_be_written_is_said(reports: Path) -> None:
    (reports / "taken").write_text("a file where a folder should be")
    done = cli(reports, "compare", "base.json", "head.json", "-o", "taken/c.txt")
    assert done.returncode == 2
    assert "error: cannot write taken/c.txt: " in done.stderr


def test_a_history_that_is_not_a_database_is_moved_aside(reports: Path) -> None:
    (reports / ".checkspec").mkdir()
    db = reports / ".checkspec" / "history.db"
    db.write_bytes(b"not sqlite at all " * 100)
    listed = cli(reports, "history")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == "no runs yet\n"
    assert "SQLite cannot read it (file is not a database); moved it to history.db.corrupt-" in (
        listed.stderr
    )
    (aside,) = (reports / ".checkspec").glob("history.db.corrupt-*")
    assert aside.read_bytes() == b"not sqlite at all " * 100
    files = cli(reports, "compare", "base.json", "head.json")
    assert files.returncode == 1 and "error" not in files.stderr
