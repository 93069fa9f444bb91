"""`checkspec run` keeps each run; `checkspec history` lists them; `checkspec compare` tells
what newly fails (exit 1) and what was fixed, from the history or from JSON report files.
Real processes on real files."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from checkspec.engine.history.compare import compare
from tests.support.cli import Done, run_main

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]

AGENT = """
from pathlib import Path

HERE = Path(__file__).parent

def answer(question):
    mode = (HERE / "mode.txt").read_text().strip()
    return {"good": "ok " + question, "bad": "nope " + question}[mode]

def steady(question):
    return "ok always"
"""


def scenario(name: str, target: str, tags: str = "core") -> str:
    return textwrap.dedent(
        f"""\
          - name: {name}
            target: python:agent:{target}
            tags: [{tags}]
            steps:
              - interacts: [{{inputs: {name}}}]
                checks: [{{kind: string_matching, keyword: ok}}]
        """
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "mode.txt").write_text("good", encoding="utf-8")
    (tmp_path / "checkspec.yaml").write_text("history_max_runs: 5\n", encoding="utf-8")
    body = scenario("flips", "answer") + scenario("stays", "steady", tags="extra")
    (tmp_path / "a.suite.yaml").write_text("name: a\nscenarios:\n" + body, encoding="utf-8")
    return tmp_path


def cli(project: Path, *args: str) -> Done:
    return run_main(project, *args)


def test_runs_are_kept_listed_and_compared(project: Path) -> None:
    assert cli(project, "run", ".").returncode == 0
    (project / "mode.txt").write_text("bad")
    assert cli(project, "run", ".").returncode == 1
    listed = cli(project, "history", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    runs = json.loads(listed.stdout)
    assert [r["counts"]["fail"] for r in runs] == [1, 0]  # newest first
    text = cli(project, "history")
    assert runs[0]["id"] in text.stdout.splitlines()[1]

    compared = cli(project, "compare")
    assert compared.returncode == 1, compared.stderr  # something newly fails
    assert "Newly failing (1):" in compared.stdout
    assert "flips" in compared.stdout and "string_matching" in compared.stdout
    assert "Changed outputs for the same input (1):" in compared.stdout

    data = json.loads(cli(project, "compare", "--format", "json").stdout)
    assert [c["name"] for c in data["newly_failing"]] == ["flips"]
    assert data["changed_outputs"][0]["base_output"] == "ok flips"
    rates = {r["name"]: (r["base_rate"], r["head_rate"]) for r in data["by_tag"]}
    assert rates == {"core": (1.0, 0.0), "extra": (1.0, 1.0)}

    (project / "mode.txt").write_text("good")
    assert cli(project, "run", ".").returncode == 0
    fixed = cli(project, "compare", "--format", "markdown", "-o", "out/pr.md")
    assert fixed.returncode == 0, fixed.stderr
    comment = (project / "out" / "pr.md").read_text()
    assert "nothing newly failing" in comment and "<b>Fixed</b> (1)" in comment
    # last~2 (the first run) against last: both good
    assert cli(project, "compare", "last~2", "last").returncode == 0


def test_a_json_report_kept_from_main_is_a_base(project: Path) -> None:
    kept = cli(project, "run", ".", "--format", "json", "-o", "main-report.json", "--no-history")
    assert kept.returncode == 0, kept.stderr
    report = json.loads((project / "main-report.json").read_text())
    assert report["format"] == "checkspec-run/1" and report["run"]["id"]
    assert not (project / ".checkspec" / "history.db").exists()  # --no-history
    (project / "mode.txt").write_text("bad")
    cli(project, "run", ".")
    compared = cli(project, "compare", "main-report.json", "last", "--format", "markdown")
    assert compared.returncode == 1
    assert "1 scenario(s) newly failing" in compared.stdout


def test_bad_input_exits_2(project: Path) -> None:
    none_yet = cli(project, "compare")
    assert none_yet.returncode == 2 and "no runs yet" in none_yet.stderr
    cli(project, "run", ".")
    cli(project, "run", ".")
    unknown = cli(project, "compare", "nope", "last")
    assert unknown.returncode == 2
    ids = json.loads(cli(project, "history", "--format", "json").stdout)
    assert f"recent runs: {ids[0]['id']}, {ids[1]['id']}" in unknown.stderr
    (project / "other.json").write_text(
        json.dumps({"format": "checkspec-run/7", "run": {}, "scenarios": []})
    )
    other = cli(project, "compare", "other.json", "last")
    assert other.returncode == 2 and "checkspec-run/7" in other.stderr
    bad_format = cli(project, "compare", "--format", "pdf")
    assert bad_format.returncode == 2


def test_runs_of_different_suites_compare_what_is_common(project: Path) -> None:
    cli(project, "run", ".")
    (project / "b.suite.yaml").write_text(
        "name: b\nscenarios:\n" + scenario("new one", "steady", tags="extra"), encoding="utf-8"
    )
    cli(project, "run", "b.suite.yaml", "a.suite.yaml", "--tag", "extra")
    compared = cli(project, "compare")
    assert compared.returncode == 0, compared.stdout
    assert "compares the 1 scenario in common (1 only in base, 1 only in head)" in compared.stdout
    assert "Added (1):" in compared.stdout and "Removed (1):" in compared.stdout


def test_a_dry_run_is_not_kept(project: Path) -> None:
    assert cli(project, "run", ".", "--dry-run").returncode == 0
    assert not (project / ".checkspec" / "history.db").exists()
    assert cli(project, "history").stdout == "no runs yet\n"


def test_history_is_pruned_and_can_be_off(project: Path) -> None:
    (project / "checkspec.yaml").write_text("history_max_runs: 2\n", encoding="utf-8")
    for _ in range(3):  # one more than kept
        cli(project, "run", "a.suite.yaml", "--tag", "extra")
    assert len(json.loads(cli(project, "history", "--format", "json").stdout)) == 2
    (project / "checkspec.yaml").write_text("history: false\n")
    cli(project, "run", ".")
    assert len(json.loads(cli(project, "history", "--format", "json").stdout)) == 2


def test_an_unreadable_history_leaves_the_run_alone(project: Path) -> None:
    (project / ".checkspec").mkdir()
    (project / ".checkspec" / "history.db").write_bytes(b"garbage" * 1000)
    (project / "mode.txt").write_text("bad")
    ran = cli(project, "run", ".", "--format", "json")
    assert ran.returncode == 1
    assert json.loads(ran.stdout)["summary"]["fail"] == 1
    moved = [line for line in ran.stderr.splitlines() if "moved it to history.db.corrupt-" in line]
    assert len(moved) == 1
    assert len(json.loads(cli(project, "history", "--format", "json").stdout)) == 1


def run_report(statuses: dict[str, str], outputs: dict[str, str] | None = None) -> dict:
    return {
        "format": "checkspec-run/1",
        "run": {"id": "x"},
        "scenarios": [
            {
                "id": key,
                "scenario_name": key,
                "status": status,
                "tags": ["t"],
                "steps": [{"results": [{"status": status, "check": "equals"}]}],
                "final_trace": {
                    "interactions": [{"inputs": "q", "outputs": (outputs or {}).get(key, "a")}]
                },
            }
            for key, status in statuses.items()
        ],
    }


def test_compare_sorts_every_category() -> None:
    base = run_report(
        {"newly": "pass", "fixed": "fail", "still": "error", "same": "pass", "gone": "pass"}
    )
    head = run_report(
        {"newly": "fail", "fixed": "pass", "still": "fail", "same": "pass", "new": "fail"},
        outputs={"same": "b"},
    )
    result = compare(base, head)
    assert [c.id for c in result.newly_failing] == ["newly", "new"]
    assert [c.id for c in result.fixed] == ["fixed"]
    assert [c.id for c in result.still_failing] == ["still"]
    assert [c.id for c in result.added] == ["new"]
    assert [c.id for c in result.removed] == ["gone"]
    assert [(o.id, o.base_output, o.head_output) for o in result.changed_outputs] == [
        ("same", "a", "b")
    ]
    (equals,) = result.by_check
    assert (equals.base_passed, equals.base_total, equals.head_passed, equals.head_total) == (
        3,
        5,
        2,
        5,
    )
    assert result.common == 4 and "4 scenarios in common" in (result.note or "")
    assert result.exit_code == 1
    assert result.to_json()["exit_code"] == 1
    assert compare(head, head).exit_code == 0 and compare(head, head).note is None
