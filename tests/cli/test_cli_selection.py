"""One selection language (engine/curate/select.py) through the real command: paths,
`FILE::NAME`, `FILE::#INDEX`, `FILE::name=NAME`, --query/--tag/--status anywhere among the
selectors; an unknown file, name or index exits 2 with the nearest names; `list scenarios`
prints selectors that `run` takes back."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from tests.support.cli import Done, run_main

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]


def _scenario(name: str, output: str, extra: str = "") -> str:
    return (
        f"  - name: {json.dumps(name)}\n{extra}"
        "    steps:\n"
        f"      - interacts: [{{inputs: hi, outputs: {json.dumps(output)}}}]\n"
        "        checks: [{kind: string_matching, keyword: hello}]\n"
    )


SUITE = (
    "name: t\nscenarios:\n"
    + _scenario("#1", "hello there")
    + _scenario("dup", "hello dup one", "    tags: [billing]\n")
    + _scenario("dup", "bye", "    status: draft\n")
    + _scenario("opening hours", "hello, we open at 9")
    + _scenario("name=x", "hello x")
)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "t.suite.yaml").write_text(SUITE, encoding="utf-8")
    return tmp_path


def cli(cwd: Path, *args: str) -> Done:
    return run_main(cwd, *args)


def ran(cwd: Path, *args: str) -> list[tuple[str, int]]:
    """(name, line) of each scenario a real run takes."""
    done = cli(cwd, "run", "--no-history", "--include-drafts", "--format", "json", *args)
    assert done.returncode in (0, 1), done.stderr
    return [(s["scenario_name"], s["line"]) for s in json.loads(done.stdout)["scenarios"]]


def test_run_takes_names_indices_and_literal_names(work: Path) -> None:
    assert [n for n, _ in ran(work, "t.suite.yaml::opening hours")] == ["opening hours"]
    assert [n for n, _ in ran(work, "t.suite.yaml::dup")] == ["dup", "dup"]
    assert [n for n, _ in ran(work, "t.suite.yaml::#1")] == ["dup"]
    # `#1` is an index; the scenario literally named `#1` is `name=#1`.
    assert [n for n, _ in ran(work, "t.suite.yaml::name=#1")] == ["#1"]
    assert [n for n, _ in ran(work, "t.suite.yaml::name=name=x")] == ["name=x"]


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        ("t.suite.yaml::opening hour", "nearest: 'opening hours'"),
        ("t.suite.yaml::#9", "no scenario #9"),
        ("t.suite.yaml::#¹", "ASCII digits"),
        ("t.suit.yaml::dup", "nearest: t.suite.yaml"),
        ("nowhere.suite.yaml", "no such file"),
    ],
)
@pytest.mark.parametrize("command", ["run", "validate", "list"])
def test_unknown_exits_2_with_the_nearest(
    work: Path, command: str, selector: str, message: str
) -> None:
    words = ["list", "scenarios"] if command == "list" else [command]
    done = cli(work, *words, selector)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error:") or "\nerror:" in done.stderr, done.stderr
    assert message in done.stderr
    assert "passed" not in done.stdout + done.stderr


def test_options_anywhere_among_selectors(work: Path) -> None:
    assert [n for n, _ in ran(work, "t.suite.yaml", "--query", "open at")] == ["opening hours"]
    assert [n for n, _ in ran(work, "--status", "draft", "t.suite.yaml")] == ["dup"]
    assert [n for n, _ in ran(work, "t.suite.yaml", "--tag", "billing")] == ["dup"]
    listed = cli(work, "list", "scenarios", "t.suite.yaml", "--status", "draft")
    assert listed.returncode == 0 and listed.stdout.splitlines() == ["'t.suite.yaml::#2'"]
    edit = cli(work, "tag", "add", "new", "t.suite.yaml", "--query", "open at", "--dry-run")
    assert edit.returncode == 0, edit.stderr
    assert "+    tags: [new]" in edit.stdout
    none = cli(work, "run", "t.suite.yaml", "--query", "zzz")
    assert none.returncode == 2 and "error:" in none.stderr


def test_list_scenarios_prints_selectors_run_takes_back(work: Path) -> None:
    listed = cli(work, "list", "scenarios", ".")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines == [
        "'./t.suite.yaml::name=#1'",
        "'./t.suite.yaml::#1'  [billing]",
        "'./t.suite.yaml::#2'",
        "'./t.suite.yaml::opening hours'",
        "./t.suite.yaml::name=name=x",
    ] or [line.replace("./", "") for line in lines] == [
        "'t.suite.yaml::name=#1'",
        "'t.suite.yaml::#1'  [billing]",
        "'t.suite.yaml::#2'",
        "'t.suite.yaml::opening hours'",
        "t.suite.yaml::name=name=x",
    ]
    rows = json.loads(cli(work, "list", "scenarios", ".", "--format", "json").stdout)
    for line, row in zip(lines, rows["scenarios"], strict=True):
        (selector,) = shlex.split(line.split("  [")[0])
        assert row["selector"] == selector
        assert ran(work, selector) == [(row["name"], row["line"])]
