"""The project (engine/runs/project.py): the workspace found once per front end, and its
one evaluator of a selection.

The discovery is counted two ways: in the code (an AST count of the calls that search the
file system for the workspace, outside spec/workspace.py and the project module) and at
run time (how often one `checkspec run` searches for a checkspec.yaml, whatever the number
of files and scenarios)."""

from __future__ import annotations

import ast
import json
from collections import Counter
from pathlib import Path

import pytest

from checkspec.engine.runs import project as project_module
from checkspec.engine.runs.project import Project, Workspaces
from checkspec.engine.runs.selection import Selection
from checkspec.engine.spec import workspace as workspace_module
from checkspec.engine.spec.document import analyze
from checkspec.engine.spec.incremental import Editing
from tests.support.cli import run_main

ROOT = Path(__file__).resolve().parents[3]
# What searches the file system for a workspace, and what opens a project or an index of
# workspaces (each a front end's one place to do so).
DISCOVERY = {"find_workspace", "find_config_for", "find_config"}
OPENERS = {"Project.open", "Workspaces"}
HOME = {"engine/spec/workspace.py", "engine/runs/project.py"}
FRONT_ENDS = ("engine/cli/", "engine/pytest_plugin.py", "server/lsp/")


def _call_sites() -> list[tuple[str, int, str]]:
    sites = []
    for folder in ("engine", "server"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            shown = path.relative_to(ROOT).as_posix()
            if shown in HOME:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                if isinstance(func, ast.Name):
                    name = func.id
                elif isinstance(func, ast.Attribute):
                    owner = func.value.id if isinstance(func.value, ast.Name) else ""
                    name = f"{owner}.{func.attr}" if owner == "Project" else func.attr
                else:
                    continue
                if name in DISCOVERY or name in OPENERS:
                    sites.append((shown, node.lineno, name))
    return sites


def test_only_the_front_ends_open_a_project_and_nothing_searches_again() -> None:
    sites = _call_sites()
    searching = [s for s in sites if s[2] in DISCOVERY]
    assert searching == []  # below the front ends (and in them) only the project searches
    assert len(sites) <= 6, sites  # one place per front end
    assert all(s[0].startswith(FRONT_ENDS) for s in sites), sites
    # The CLI, the pytest plugin and the server each have one.
    per_front_end = Counter(next(f for f in FRONT_ENDS if s[0].startswith(f)) for s in sites)
    assert set(per_front_end) == set(FRONT_ENDS) and max(per_front_end.values()) == 1


def test_no_process_wide_switch_or_cache_decides_what_an_analysis_keeps() -> None:
    for folder in ("engine", "server", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names = {
                n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else ""
                for n in ast.walk(tree)
            } | {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
            assert "keep_scenarios" not in names, path
    assert not hasattr(workspace_module, "_CACHE")  # the readers keep theirs (Workspaces)


def test_keeping_the_runnable_scenarios_is_a_parameter_of_each_analysis() -> None:
    text = "name: s\nsteps:\n  - interacts: [{inputs: q, outputs: ok}]\n    checks: [{kind: string_matching, keyword: ok}]\n"
    lazy = Editing(text, "a.scenario.yaml", keep=False).analysis()
    kept = analyze(text, "b.scenario.yaml")  # after a problems-only analysis: no switch left
    assert lazy.scenarios[0].built is None and lazy.scenarios[0].runnable
    assert kept.scenarios[0].built is not None
    assert lazy.scenarios[0].scenario is not None  # made when asked for


def _suite(name: str, count: int, *, tags: str = "[]", draft: int | None = None) -> str:
    lines = [f"name: {name}", "scenarios:"]
    for i in range(count):
        status = "\n    status: draft" if i == draft else ""
        answer = "nope" if i == 1 else "ok"
        lines.append(
            f"  - name: {name} {i}\n    tags: {tags if i % 2 == 0 else '[other]'}{status}\n"
            f"    steps:\n      - interacts: [{{inputs: question {i}, outputs: {answer}}}]\n"
            "        checks: [{kind: string_matching, keyword: ok}]"
        )
    return "\n".join(lines) + "\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "checkspec.yaml").write_text("jobs: 1\n")
    (tmp_path / "a.suite.yaml").write_text(_suite("a", 4, tags="[smoke]", draft=2))
    (tmp_path / "sub").mkdir()
    for n in range(6):
        (tmp_path / "sub" / f"b{n}.suite.yaml").write_text(_suite(f"b{n}", 5))
    return tmp_path


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every search of the file system for a checkspec.yaml, wherever it is called from."""
    searched: list[Path] = []
    real = workspace_module.find_config

    def find_config(start: Path) -> Path | None:
        searched.append(start)
        return real(start)

    monkeypatch.setattr(workspace_module, "find_config", find_config)
    monkeypatch.setattr(project_module, "find_config", find_config)
    return searched


def test_one_run_finds_its_workspace_once_whatever_its_size(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    searched = _spy(monkeypatch)
    done = run_main(folder, "run", "a.suite.yaml", "--format", "json")
    assert done.returncode == 1, done.stderr  # `a 1` fails
    small = len(searched)
    searched.clear()
    done = run_main(folder, "run", ".", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert len(json.loads(done.stdout)["scenarios"]) == 3 + 6 * 5  # the draft left out
    # The project, then each folder of files once: not once per file or scenario (before
    # the project, a run of 200 scenarios in 10 files searched 222 times).
    assert small <= 2 and len(searched) <= 3, searched


def _select(folder: Path, *paths: str, **given: object) -> tuple[list[str], list[str], Project]:
    project = Project.open([folder / p.split("::")[0] for p in paths])
    loaded = project.load([str(folder / p) for p in paths])
    assert loaded.refusal is None, loaded.refusal
    chosen, refusals = project.select(Selection(**given), loaded.documents)  # type: ignore[arg-type]
    return [project.identity(d.path, e) for d, e in chosen.entries], refusals, project


def test_each_selector_and_filter(folder: Path) -> None:
    names, _, _ = _select(folder, "a.suite.yaml")
    assert names == ["a.suite.yaml::a 0", "a.suite.yaml::a 1", "a.suite.yaml::a 3"]  # drafts out
    names, _, _ = _select(folder, "a.suite.yaml", include_drafts=True)
    assert "a.suite.yaml::a 2" in names
    names, _, _ = _select(folder, "a.suite.yaml::a 3")
    assert names == ["a.suite.yaml::a 3"]
    names, _, _ = _select(folder, "a.suite.yaml::#1")
    assert names == ["a.suite.yaml::a 1"]
    names, _, _ = _select(folder, "a.suite.yaml", tags=("smoke",))
    assert names == ["a.suite.yaml::a 0"]  # `a 2` has the tag but is a draft
    names, _, _ = _select(folder, "a.suite.yaml", query="QUESTION 3")
    assert names == ["a.suite.yaml::a 3"]
    names, _, _ = _select(folder, "a.suite.yaml", status="draft")
    assert names == ["a.suite.yaml::a 2"]
    names, _, _ = _select(folder, "sub")
    assert len(names) == 30 and names[0] == "sub/b0.suite.yaml::b0 0"
    shards = [_select(folder, "sub", shard=(k, 3))[0] for k in (1, 2, 3)]
    every = [name for shard in shards for name in shard]
    assert sorted(every) == sorted(names) and all(shards)  # disjoint, complete


def test_what_was_left_out_and_why(folder: Path) -> None:
    project = Project.open([folder])
    documents = project.load([str(folder / "a.suite.yaml")]).documents
    chosen, _ = project.select(Selection(status="active"), documents)
    assert chosen.left_out is not None
    assert chosen.left_out.reasons == {"scenario(s) not of --status active": ["a.suite.yaml::a 2"]}
    assert chosen.selected == 3


def test_last_failed_takes_the_record_of_the_last_run(folder: Path) -> None:
    assert run_main(folder, "run", "a.suite.yaml").returncode == 1  # `a 1` failed
    names, _, project = _select(folder, "a.suite.yaml", last_failed=True)
    assert names == ["a.suite.yaml::a 1"]
    assert (project.state_folder / "lastfailed.json").is_file()
    documents = project.load([str(folder / "a.suite.yaml")]).documents
    chosen, _ = project.select(Selection(last_failed=True), documents)
    assert chosen.notes == ["--last-failed: running the 1 that failed last time"]


def test_a_selection_that_cannot_be_is_refused(folder: Path) -> None:
    _, refusals, _ = _select(folder, "a.suite.yaml", tags=("nightly",))
    assert refusals == ["no scenario has the tag 'nightly'; tags in these files: other, smoke"]
    _, refusals, _ = _select(folder, "a.suite.yaml", query="absent words")
    assert refusals == ["no scenario holds every word of --query 'absent words'"]
    loaded = Project.open([folder]).load([str(folder / "a.suite.yaml::a 9")])
    assert loaded.refusal is not None and "no scenario named 'a 9'" in loaded.refusal
    assert "nearest" in loaded.refusal


def test_a_nested_checkspec_yaml_counts_for_its_files(folder: Path) -> None:
    (folder / "sub" / "checkspec.yaml").write_text("target_timeout: 3\n")
    project = Project.open([folder])
    document = project.load_file(folder / "sub" / "b0.suite.yaml")
    assert document.scenarios[0].scenario is not None
    assert document.scenarios[0].scenario.target_timeout == 3
    assert project.identity(document.path, document.scenarios[0]) == "b0.suite.yaml::b0 0"


def test_the_index_reads_a_checkspec_yaml_once_per_change(tmp_path: Path) -> None:
    config = tmp_path / "checkspec.yaml"
    config.write_text("jobs: 1\n")
    workspaces = Workspaces()
    first = workspaces.workspace_for(tmp_path / "x.suite.yaml")
    assert workspaces.workspace_for(tmp_path / "y.suite.yaml") is first
    assert workspaces.root_of(tmp_path / "x.suite.yaml") == tmp_path


def test_a_file_named_by_file_name_is_read_once(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from checkspec.engine.curate import files
    from checkspec.engine.spec import files as spec_files

    read: list[Path] = []
    real = spec_files.load_file

    def load_file(path: Path, *args: object, **kwargs: object) -> object:
        read.append(path)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(spec_files, "load_file", load_file)
    monkeypatch.setattr(files, "read_spec", lambda path: pytest.fail(f"{path} read as text"))
    project = Project.open([folder])
    selectors = [str(folder / "a.suite.yaml::a 3"), str(folder / "a.suite.yaml::#0")]
    loaded = project.load(selectors)
    assert read == [folder / "a.suite.yaml"]  # analysed once, its names resolved there
    assert [e.name for d in loaded.documents for e in d.scenarios] == ["a 0", "a 3"]
