"""Spec files on disk: which files are spec files, how each is loaded, and the workspace's
checkspec.yaml, re-read when it changes (engine/spec/files.py, kinds.py, workspace.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from checkspec.engine.spec.files import collect
from checkspec.engine.spec.kinds import (
    FileKind,
    is_json,
    is_jsonl,
    kind_from_name,
    kind_from_schema,
)
from checkspec.engine.spec.workspace import find_config
from tests.support.project_files import load_file

SCENARIO = "name: s\nsteps:\n  - interacts: [{inputs: a, outputs: b}]\n    checks: [{kind: string_matching, keyword: b}]\n"


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("a.scenario.yaml", FileKind.SCENARIO),
        ("dir/a.scenario.yml", FileKind.SCENARIO),
        ("a.scenario.json", FileKind.SCENARIO),
        ("a.suite.yaml", FileKind.SUITE),
        ("a.suite.json", FileKind.SUITE),
        ("a.dataset.jsonl", FileKind.DATASET),
        ("a.dataset.yml", FileKind.DATASET),
        ("checkspec.yaml", FileKind.CONFIG),
        ("sub/checkspec.yml", FileKind.CONFIG),
        ("a.suite.jsonl", None),
        ("scenario.yaml", None),
        ("a.yaml", None),
        ("checkspec.json", None),
    ],
)
def test_the_kind_comes_from_the_name(name: str, kind: FileKind | None) -> None:
    assert kind_from_name(name) is kind


def test_the_kind_comes_from_a_schema_reference() -> None:
    assert kind_from_schema("../schemas/suite.schema.json") is FileKind.SUITE
    assert kind_from_schema("https://x.org/dataset.schema.json/") is FileKind.DATASET
    assert kind_from_schema("config.schema.json") is FileKind.CONFIG
    assert kind_from_schema("suite.json") is None
    assert kind_from_schema(3) is None
    assert is_json("a.scenario.json") and is_json("a.dataset.jsonl") and not is_json("a.yaml")
    assert is_jsonl("a.dataset.jsonl") and not is_jsonl("a.scenario.json")


def test_collect_walks_folders_skipping_tools_and_hidden_ones(tmp_path: Path) -> None:
    for rel in [
        "b.scenario.yaml",
        "a.suite.yaml",
        "sub/c.dataset.jsonl",
        "sub/checkspec.yaml",
        "sub/notes.yaml",
        ".venv/x.scenario.yaml",
        "node_modules/y.scenario.yaml",
        ".hidden/z.scenario.yaml",
        "build/w.scenario.yaml",
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(SCENARIO)
    single = tmp_path / "sub" / "notes.yaml"
    found, missing = collect([tmp_path, single, tmp_path / "nope"])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "a.suite.yaml",
        "b.scenario.yaml",
        "sub/c.dataset.jsonl",
        "sub/notes.yaml",  # named explicitly: taken as given
    ]
    assert missing == [str(tmp_path / "nope")]


def test_a_file_is_loaded_with_its_workspace(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yaml").write_text("target_timeout: 7\n")
    (tmp_path / "sub").mkdir()
    path = tmp_path / "sub" / "a.scenario.yaml"
    path.write_text(SCENARIO)
    document = load_file(path, display="shown/a.scenario.yaml")
    assert document.path == "shown/a.scenario.yaml"
    scenario = document.scenarios[0].scenario
    assert scenario.base_dirs == (str(path.resolve().parent), str(tmp_path))
    assert scenario.target_timeout == 7
    other = tmp_path / "b.scenario.yaml"
    other.write_text(SCENARIO)
    again = load_file(other).scenarios[0].scenario
    assert again is not scenario and again.base_dirs[0] == str(tmp_path.resolve())
    assert scenario.base_dirs[0] == str(path.resolve().parent)  # not changed by the other


def test_files_that_cannot_be_analysed_are_one_problem(tmp_path: Path) -> None:
    (tmp_path / "checkspec.yaml").write_text("max_file_size: 10\n")
    big = tmp_path / "big.scenario.yaml"
    big.write_text(SCENARIO)
    (problem,) = load_file(big).problems
    assert (problem.code, problem.message) == (
        "too-large",
        f"file is {big.stat().st_size / 1e6:.1f} MB, over the 1e-05 MB limit (max_file_size in checkspec.yaml)",
    )
    binary = tmp_path / "sub" / "bin.scenario.yaml"
    binary.parent.mkdir()
    (binary.parent / "checkspec.yaml").write_text("name_of_nothing: 1\n")
    binary.write_bytes(b"name: \xff\xfe\n")
    document = load_file(binary)
    assert [(p.code, p.message) for p in document.problems] == [
        ("encoding", "file is not UTF-8 text: invalid start byte")
    ]
    assert document.kind is FileKind.SCENARIO and document.scenarios == []
    folder = tmp_path / "sub" / "dir.scenario.yaml"
    folder.mkdir()
    (unreadable,) = load_file(folder).problems
    assert unreadable.code == "unreadable" and unreadable.message.startswith("cannot read file: ")


def test_an_edited_checkspec_yaml_is_read_again(tmp_path: Path) -> None:
    from checkspec.engine.runs.project import Workspaces

    config = tmp_path / "checkspec.yaml"
    config.write_text("target: python:a:one\n")
    os.utime(config, (1_000_000, 1_000_000))
    spec = tmp_path / "x.scenario.yaml"
    workspaces = Workspaces(remember_folders=False)  # as the language server keeps them
    first = workspaces.workspace_for(spec)
    assert first.config.target == "python:a:one" and first.root == tmp_path
    assert workspaces.workspace_for(spec) is first  # unchanged: not read again
    config.write_text("target: python:a:two\n")
    os.utime(config, (2_000_000, 2_000_000))
    assert workspaces.workspace_for(spec).config.target == "python:a:two"
    assert find_config(tmp_path / "deeper" / "y.scenario.yaml") == config
    config.unlink()
    assert workspaces.workspace_for(spec).config.target is None


def test_dataset_records_are_named_by_their_last_user_message() -> None:
    from checkspec.engine.spec.datasets import record_name

    chat = {
        "messages": [{"role": "user", "content": "first"}, {"role": "user", "content": " a\n  b "}]
    }
    assert record_name(chat, "fallback") == "a b"
    assert record_name("  plain   text ", "fallback") == "plain text"
    assert record_name("x" * 60, "f") == "x" * 60
    assert record_name("x" * 61, "f") == "x" * 59 + "…"
    assert record_name("abcdef", "f", limit=4) == "abc…"
    for nameless in (
        {"messages": []},
        {"messages": ["text"]},
        {"messages": [{"content": 3}]},
        "  ",
        5,
        None,
    ):
        assert record_name(nameless, "fallback") == "fallback"


def test_positions_ranges_and_problem_lines() -> None:
    from checkspec.engine.spec.problems import Position, Problem, Range, Severity

    rng = Range(Position(1, 2), Position(1, 5))
    assert rng.contains(Position(1, 2)) and rng.contains(Position(1, 4))
    assert not rng.contains(Position(1, 5)) and not rng.contains(Position(1, 1))
    assert not rng.contains(Position(0, 9)) and not rng.contains(Position(2, 0))
    empty = Range.point(3, 4)
    assert empty == Range(Position(3, 4), Position(3, 4))
    assert empty.contains(Position(3, 4)) and not empty.contains(Position(3, 5))
    assert Position(1, 9) < Position(2, 0) < Position(2, 1)
    problem = Problem("x", "bad thing", rng, Severity.WARNING)
    assert problem.format("a.yaml") == "a.yaml:2:3: warning: bad thing"
    assert Problem("x", "m", rng).format("b") == "b:2:3: error: m"
