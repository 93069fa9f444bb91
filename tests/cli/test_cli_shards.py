"""Sharded runs, merged reports and --last-failed, through the real command."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from checkspec.engine.cli.selection import parse_shard, shard_of

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]


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


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "checkspec.yaml").write_text("jobs: 1\n")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "one.suite.yaml").write_text(scenarios("one", 25, {3, 17}))
    (tmp_path / "b.suite.yaml").write_text(scenarios("two", 30, {8}))
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
    (tmp_path / "c.dataset.jsonl").write_text(json.dumps(row) + "\n")
    return tmp_path


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def ids(report: Path) -> list[str]:
    return [s["id"] for s in json.loads(report.read_text())["scenarios"]]


def test_shards_are_disjoint_complete_and_independent_of_path_order(project: Path) -> None:
    full = project / "full.json"
    cli(project, "run", ".", "--format", "json", "-o", str(full))
    shards = []
    for k in (1, 2, 3):
        out = project / f"s{k}.json"
        # Each shard gets the paths in another order: the assignment must not care.
        paths = (
            ["b.suite.yaml", "a", "c.dataset.jsonl"]
            if k % 2
            else ["c.dataset.jsonl", "a", "b.suite.yaml"]
        )
        cli(project, "run", *paths, "--shard", f"{k}/3", "--format", "json", "-o", str(out))
        shards.append(set(ids(out)))
    assert all(shards), "every shard got some scenarios"
    assert not (shards[0] & shards[1] or shards[0] & shards[2] or shards[1] & shards[2])
    assert shards[0] | shards[1] | shards[2] == set(ids(full))
    assert "c.dataset.jsonl::#0" in ids(full)  # unnamed: its index
    assert "a/one.suite.yaml::one 3" in ids(full)  # relative to the workspace root


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
def test_merged_shards_equal_the_full_run(project: Path, fmt: str) -> None:
    full = cli(project, "run", ".", "--format", fmt)
    parts = []
    for k in (1, 2, 3):
        out = project / f"s{k}.json"
        cli(project, "run", ".", "--shard", f"{k}/3", "--format", "json", "-o", str(out))
        parts.append(str(out))
    merged = cli(project, "merge", *reversed(parts), "--format", fmt)
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


def test_merge_refuses_reports_that_do_not_add_up(project: Path) -> None:
    for k, n in ((1, 2), (2, 2), (1, 3)):
        cli(project, "run", ".", "--shard", f"{k}/{n}", "--format", "json", "-o", f"s{k}of{n}.json")
    cli(project, "run", ".", "--format", "json", "-o", "full.json")
    (project / "broken.json").write_text("{not json")
    cases = {
        ("s1of2.json", "s1of2.json"): "shard 1/2 is given twice",
        ("s1of2.json",): "missing the report of shard 2/2",
        ("s1of2.json", "s1of3.json"): "different shard counts",
        ("s1of2.json", "s2of2.json", "full.json"): "full.json: not a shard's report",
        ("full.json", "full.json"): "is in both full.json and full.json",
        ("broken.json",): "broken.json: not JSON",
        ("nothere.json",): "nothere.json: cannot read it",
    }
    for reports, said in cases.items():
        done = cli(project, "merge", *reports)
        assert done.returncode == 2, reports
        assert said in done.stderr, (reports, done.stderr)
    assert cli(project, "merge", "s1of2.json", "s2of2.json").returncode == 1


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
