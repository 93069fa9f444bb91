"""The curation commands and `hub export` / `hub import` on a JSON Lines dataset read its
rows as values, one at a time (issue 41 item 3): their answers are those of the reading
before (every row's located tree, forced here by refusing the value-only reading), on a
2,000-row dataset with drafts, unnamed rows, a name used twice, escaped and raw
non-ASCII text; a bad row is named at its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checkspec.engine.curate import files, hub, hub_import
from tests.support.cli import Done, run_main
from tests.support.hub_rows import varied_row

ROWS = 2_000
NAME = "big.dataset.jsonl"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    text = "".join(varied_row(n) + "\n" for n in range(ROWS))
    (tmp_path / NAME).write_text(text, encoding="utf-8")
    return tmp_path


def both(folder: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[Done, Done]:
    """The command as it is, then with every row read into its tree (the file restored
    between the two, and what they wrote compared by the caller)."""
    original = (folder / NAME).read_bytes()
    streamed = run_main(folder, *args)
    streamed_file = (folder / NAME).read_bytes()
    (folder / NAME).write_bytes(original)
    with monkeypatch.context() as patch:
        patch.setattr(files, "_value_of", lambda line: (False, None))
        whole = run_main(folder, *args)
    assert (folder / NAME).read_bytes() == streamed_file
    return streamed, whole


@pytest.mark.parametrize(
    "args",
    [
        ("list", "scenarios", NAME, "--query", "row 42"),
        ("list", "scenarios", NAME, "--query", "café", "--format", "json"),
        ("list", "scenarios", NAME, "--tag", "x1", "--status", "draft"),
        ("list", "scenarios", NAME, "--limit", "40", "--offset", "1500"),
        ("list", "tags", NAME),
        ("tag", "add", "reviewed", NAME, "--query", "plus one 1"),
        ("status", "active", NAME, "--status", "draft"),
        ("tag", "remove", "hub", f"{NAME}::twice"),
        ("checks", "disable", "string_matching", NAME, "--query", "café"),
        ("delete", "--yes", f"{NAME}::#1999", f"{NAME}::#7"),
    ],
)
def test_curation_answers_as_with_every_rows_tree(
    folder: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    streamed, whole = both(folder, monkeypatch, *args)
    assert streamed.returncode == whole.returncode == 0, streamed.stderr
    assert (streamed.stdout, streamed.stderr) == (whole.stdout, whole.stderr)
    assert streamed.stdout or streamed.stderr


def test_an_edit_keeps_every_other_byte(folder: Path) -> None:
    before = (folder / NAME).read_text(encoding="utf-8").split("\n")
    assert run_main(folder, "tag", "add", "seen", f"{NAME}::row 1000").returncode == 0
    after = (folder / NAME).read_text(encoding="utf-8").split("\n")
    changed = [n for n, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert changed == [1000] and json.loads(after[1000])["tags"] == ["hub", "seen"]


@pytest.mark.parametrize("form", ["jsonl", "json"])
def test_the_export_is_written_as_before(
    folder: Path, form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = run_main(folder, "hub", "export", NAME, "--format", form, "-o", f"out.{form}")
    assert done.returncode == 0, done.stderr
    assert f"exported {ROWS} scenario(s)" in done.stderr
    with monkeypatch.context() as patch:  # the rows as a list, written at once (before)
        patch.chdir(folder)
        patch.setattr(files, "_value_of", lambda line: (False, None))
        rows = hub.export_rows([files.read_spec(Path(NAME))], lambda path: folder)
    if form == "json":
        expected = json.dumps(rows, ensure_ascii=False, indent=1) + "\n"
    else:
        expected = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    assert (folder / f"out.{form}").read_text(encoding="utf-8") == expected
    stdout = run_main(folder, "hub", "export", NAME, "--format", form)
    assert stdout.stdout == expected


def test_a_query_nothing_holds_is_refused_as_a_run_refuses_it(folder: Path) -> None:
    """One evaluator of the selection: the same refusal, the same exit, as `run`."""
    done = run_main(folder, "hub", "export", NAME, "--query", "nowhere", "--format", "json")
    said = "error: no scenario holds every word of --query 'nowhere'\n"
    assert (done.returncode, done.stdout, done.stderr) == (2, "", said)
    ran = run_main(folder, "run", NAME, "--query", "nowhere", "--dry-run")
    assert (ran.returncode, ran.stderr.splitlines()[-1]) == (2, said.strip())


def test_the_import_into_json_lines_is_written_as_before(folder: Path) -> None:
    assert run_main(folder, "hub", "export", NAME, "-o", "hub.jsonl").returncode == 0
    done = run_main(folder, "hub", "import", "hub.jsonl", "--to", "back.dataset.jsonl")
    assert done.returncode == 0, done.stderr
    assert f"imported {ROWS} scenario(s) into back.dataset.jsonl (JSON Lines" in done.stderr
    source = (folder / "hub.jsonl").read_text(encoding="utf-8")
    rows = hub.import_rows(hub.read_hub(source, folder / "hub.jsonl"))
    expected = hub.write_rows(folder / "back.dataset.jsonl", rows, "back")
    assert (folder / "back.dataset.jsonl").read_text(encoding="utf-8") == expected
    assert run_main(folder, "validate", "back.dataset.jsonl").returncode == 0


def test_an_import_that_would_not_validate_names_each_row_at_its_line(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Validated a slice of rows at a time: the problems and their lines are those of
    the whole file analysed at once."""
    assert run_main(folder, "hub", "export", NAME, "-o", "hub.jsonl").returncode == 0
    lines = (folder / "hub.jsonl").read_text(encoding="utf-8").split("\n")[:-1]
    for at in (3, 1234, 1999):
        broken = json.loads(lines[at])
        broken["interactions"][0]["checks"][0]["check_id"] = "no_such_check"
        lines[at] = json.dumps(broken)
    (folder / "hub.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(hub_import, "ROWS_AT_A_TIME", 300)
    sliced = run_main(folder, "hub", "import", "hub.jsonl", "--to", "a.dataset.jsonl")
    monkeypatch.setattr(hub_import, "ROWS_AT_A_TIME", 10 * ROWS)
    whole = run_main(folder, "hub", "import", "hub.jsonl", "--to", "a.dataset.jsonl")
    assert sliced.returncode == whole.returncode == 2
    assert sliced.stderr == whole.stderr
    for line in (4, 1235, 2000):
        assert f"a.dataset.jsonl:{line}:" in sliced.stderr
    assert not (folder / "a.dataset.jsonl").exists()


def test_a_source_line_that_is_not_json_is_named(folder: Path) -> None:
    assert run_main(folder, "hub", "export", NAME, "-o", "hub.jsonl").returncode == 0
    lines = (folder / "hub.jsonl").read_text(encoding="utf-8").split("\n")[:-1]
    lines[876] = lines[876][:40]
    (folder / "hub.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_main(folder, "hub", "import", "hub.jsonl", "--to", "a.dataset.jsonl")
    assert done.returncode == 2 and "hub.jsonl:877: not JSON or JSON Lines" in done.stderr
    assert not (folder / "a.dataset.jsonl").exists()
