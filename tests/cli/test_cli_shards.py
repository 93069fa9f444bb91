"""Sharded runs, merged reports and --last-failed, through the command line's `main`
(in-process: tests/support/cli.py). The project's shards are run once for the tests that
only read them."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from checkspec.engine.cli.selection import parse_shard, shard_of
from tests.support.cli import Done, run_main


def scenarios(prefix: str, count: int, failing: set[int] = frozenset()) -> str:  # type: ignore[assignment]
    parts = [f"name: {prefix}", "scenarios:"]
    for i in range(count):
        answer = "nope" if i in failing else "ok"
        parts += [
            f"  - name: {prefix} {i}",
            "    steps:",
            f"      - interacts: [{{inputs: q, outputs: {answer}}}]",
            "        checks: [{kind: string_matching, keyword: ok}]",
        ]
    return "\n".join(parts) + "\n"


def make_project(folder: Path) -> Path:
    (folder / "checkspec.yaml").write_text("jobs: 1\n")
    (folder / "a").mkdir()
    (folder / "a" / "one.suite.yaml").write_text(scenarios("one", 25, {3, 17}))
    (folder / "b.suite.yaml").write_text(scenarios("two", 30, {8}))
    # Dataset rows have no name: their identity is their index.
    row = {
        "interactions": [
            {
                "input": {"messages": [{"role": "user", "content": "q"}]},
                "output": {"response": {"role": "assistant", "content": "ok"}},
                "checks": [{"identifier": "string_matching", "params": {"keyword": "ok"}}],
            }
        ]
    }
    (folder / "c.dataset.jsonl").write_text(json.dumps(row) + "\n")
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def cli(cwd: Path, *args: str) -> Done:
    return run_main(cwd, *args)


@pytest.fixture(scope="module")
def sharded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project run whole (full.json) and as 3 shards (s1.json...), each shard given
    the paths in another order: the assignment must not care. Tests read it only."""
    project = make_project(tmp_path_factory.mktemp("sharded"))
    full = cli(project, "run", ".", "--format", "json", "-o", "full.json")
    assert full.returncode == 1, full.stderr
    for k in (1, 2, 3):
        paths = (
            ["b.suite.yaml", "a", "c.dataset.jsonl"]
            if k % 2
            else ["c.dataset.jsonl", "a", "b.suite.yaml"]
        )
        done = cli(
            project, "run", *paths, "--shard", f"{k}/3", "--format", "json", "-o", f"s{k}.json"
        )
        assert done.returncode in (0, 1), done.stderr
    return project


def ids(report: Path) -> list[str]:
    return [s["id"] for s in json.loads(report.read_text())["scenarios"]]


def test_shards_are_disjoint_complete_and_independent_of_path_order(sharded: Path) -> None:
    shards = [set(ids(sharded / f"s{k}.json")) for k in (1, 2, 3)]
    full = ids(sharded / "full.json")
    assert all(shards), "every shard got some scenarios"
    assert not (shards[0] & shards[1] or shards[0] & shards[2] or shards[1] & shards[2])
    assert shards[0] | shards[1] | shards[2] == set(full)
    assert "c.dataset.jsonl::#0" in full  # unnamed: its index
    assert "a/one.suite.yaml::one 3" in full  # relative to the workspace root


def test_shard_assignment_is_a_stable_hash() -> None:
    assert shard_of("a/one.suite.yaml::one 3", 4) == shard_of("a/one.suite.yaml::one 3", 4)
    counts = [0, 0, 0, 0]
    for i in range(4000):
        counts[shard_of(f"f.suite.yaml::s{i}", 4) - 1] += 1
    assert all(900 < n < 1100 for n in counts)  # spread evenly
    assert parse_shard("2/4") == (2, 4)
    for bad in ("0/4", "5/4", "x", "1/0", "1/2/3"):
        with pytest.raises(Exception, match="K/N"):
            parse_shard(bad)


def _normalized(text: str) -> str:
    """Timings differ between runs; everything else must not."""
    text = re.sub(r'"duration(_ms|_s)": [0-9.]+', '"duration": 0', text)
    text = re.sub(r'time="[0-9.]+"', 'time=""', text)
    return re.sub(r"\d+ ms|in \d+\.\d+s", "", text)


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "sarif"])
def test_merged_shards_equal_the_full_run(sharded: Path, fmt: str) -> None:
    full = cli(sharded, "run", ".", "--format", fmt)
    merged = cli(sharded, "merge", "s3.json", "s2.json", "s1.json", "--format", fmt)
    assert merged.returncode == full.returncode == 1
    if fmt == "json":
        whole, joined = json.loads(full.stdout), json.loads(merged.stdout)
        assert (
            joined["summary"] == whole["summary"] == {"pass": 53, "fail": 3, "error": 0, "skip": 0}
        )
        assert _normalized(json.dumps(joined["scenarios"])) == _normalized(
            json.dumps(whole["scenarios"])
        )
    else:
        assert _normalized(merged.stdout) == _normalized(full.stdout)


def test_merge_refuses_reports_that_do_not_add_up(sharded: Path, tmp_path: Path) -> None:
    for k, n in ((1, 2), (2, 2)):
        out = str(tmp_path / f"s{k}of{n}.json")
        cli(sharded, "run", ".", "--shard", f"{k}/{n}", "--format", "json", "-o", out)
    shutil.copy(sharded / "s1.json", tmp_path / "s1of3.json")
    shutil.copy(sharded / "full.json", tmp_path / "full.json")
    (tmp_path / "broken.json").write_text("{not json")
    cases = {
        ("s1of2.json", "s1of2.json"): "shard 1/2 is given twice",
        ("s1of2.json",): "missing the report of shard 2/2",
        ("s1of2.json", "s1of3.json"): "different shard counts",
        ("s1of2.json", "s2of2.json", "full.json"): "full.json: not a shard's report",
        ("full.json", "full.json"): "is in both full.json and full.json",
        ("broken.json",): "broken.json: not JSON",
        ("nothere.json",): "nothere.json: no such file",
    }
    for reports, said in cases.items():
        done = cli(tmp_path, "merge", *reports)
        assert done.returncode == 2, reports
        assert said in done.stderr, (reports, done.stderr)
    assert cli(tmp_path, "merge", "s1of2.json", "s2of2.json").returncode == 1


def test_last_failed_runs_only_what_failed_then_everything(project: Path) -> None:
    first = cli(project, "run", ".", "--format", "json")
    assert first.returncode == 1
    state = json.loads((project / ".checkspec" / "lastfailed.json").read_text())
    assert state["failed"] == [
        "a/one.suite.yaml::one 17",
        "a/one.suite.yaml::one 3",
        "b.suite.yaml::two 8",
    ]
    assert (project / ".checkspec" / ".gitignore").read_text().splitlines()[-1] == "*"
    again = cli(project, "run", ".", "--lf", "--format", "json")
    assert sorted(s["id"] for s in json.loads(again.stdout)["scenarios"]) == state["failed"]
    assert "running the 3 that failed last time" in again.stderr
    # Fix one: it passes under --lf and leaves the record.
    suite = project / "b.suite.yaml"
    suite.write_text(scenarios("two", 30))
    cli(project, "run", ".", "--lf")
    state = json.loads((project / ".checkspec" / "lastfailed.json").read_text())
    assert "b.suite.yaml::two 8" not in state["failed"]
    (project / "a" / "one.suite.yaml").write_text(scenarios("one", 25))
    cli(project, "run", ".", "--lf")
    everything = cli(project, "run", ".", "--lf", "--format", "json")
    assert "no scenario failed in the last run; running all" in everything.stderr
    assert len(json.loads(everything.stdout)["scenarios"]) == 56
