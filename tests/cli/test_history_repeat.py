"""`checkspec run --repeat K`: each scenario K times, pass counts and rates per scenario and
check, flaky when verdicts differ, `--min-pass-rate` decides; the verdict cache is not
asked for the repeats. A real CLI process over a target whose answer alternates."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from tests.support.cli import Done, run_main
from tests.support.openai_stub import OpenAIStub, running_stub

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]

# Alternates across processes: the count is kept in a file, under a lock.
AGENT = """
import fcntl
from pathlib import Path

HERE = Path(__file__).parent

def alternating(question):
    with open(HERE / "count.txt", "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        n = int(f.read() or 0)
        f.seek(0)
        f.truncate()
        f.write(str(n + 1))
    return "ok" if n % 2 == 0 else "nope"

def steady(question):
    return "ok"
"""

SUITE = """
name: repeats
scenarios:
  - name: coin
    target: python:agent:alternating
    steps:
      - interacts: [{inputs: hi}]
        checks: [{kind: string_matching, keyword: ok}, {kind: string_matching, keyword: o}]
  - name: rock
    target: python:agent:steady
    steps:
      - interacts: [{inputs: hi}]
        checks: [{kind: string_matching, keyword: ok}]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "r.suite.yaml").write_text(SUITE.lstrip(), encoding="utf-8")
    return tmp_path


def cli(project: Path, *args: str, env: dict[str, str] | None = None) -> Done:
    return run_main(project, *args, env=env)


def test_repeats_give_rates_and_flakiness(project: Path) -> None:
    ran = cli(project, "run", ".", "--repeat", "4", "--format", "json")
    assert ran.returncode == 1, ran.stderr  # coin passed 2 of 4, the default needs all
    report = json.loads(ran.stdout)
    by_name = {s["scenario_name"]: s for s in report["scenarios"]}
    assert len(report["scenarios"]) == 2  # one entry a scenario, not a run
    coin, rock = by_name["coin"]["repeats"], by_name["rock"]["repeats"]
    assert (coin["runs"], coin["passed"], coin["rate"], coin["flaky"]) == (4, 2, 0.5, True)
    assert sorted(coin["statuses"]) == ["fail", "fail", "pass", "pass"]
    assert [(c["check"], c["passed"], c["runs"]) for c in coin["checks"]] == [
        ("string_matching", 2, 4),
        ("string_matching", 4, 4),
    ]
    assert by_name["coin"]["status"] == "fail"
    assert (rock["passed"], rock["flaky"]) == (4, False)
    assert report["run"]["repeat"] == 4 and report["run"]["flaky"] == 1


def test_min_pass_rate_decides(project: Path) -> None:
    ran = cli(project, "run", ".", "--repeat", "4", "--min-pass-rate", "0.5")
    assert ran.returncode == 0, ran.stdout
    assert "2/4 runs passed (50%), flaky" in ran.stdout
    assert "each scenario run 4 times (min pass rate 0.5), 1 flaky" in ran.stdout
    junit = cli(project, "run", ".", "--repeat", "2", "--format", "junit", "--jobs", "2")
    case = ET.fromstring(junit.stdout).find(".//testcase[@name='coin']")
    assert case is not None
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["repeat.runs"] == "2" and props["repeat.passed"] == "1"
    assert props["repeat.flaky"] == "true"
    bad = cli(project, "run", ".", "--min-pass-rate", "1.5")
    assert bad.returncode == 2


def test_shards_with_repeats_lose_nothing(project: Path) -> None:
    for k in (1, 2):
        ran = cli(
            project, "run", ".", "--repeat", "3", "--shard", f"{k}/2", "--format", "json",
            "-o", f"s{k}.json", "--jobs", "2",
        )  # fmt: skip
        assert ran.returncode in (0, 1), ran.stderr
    merged = cli(project, "merge", "s1.json", "s2.json", "--format", "json")
    scenarios = json.loads(merged.stdout)["scenarios"]
    assert sorted(s["scenario_name"] for s in scenarios) == ["coin", "rock"]
    assert all(s["repeats"]["runs"] == 3 for s in scenarios)
    assert int((project / "count.txt").read_text()) == 3  # coin ran 3 times, in its shard


JUDGED = """
name: judged
steps:
  - interacts: [{inputs: It broke!, outputs: "Sorry about that."}]
    checks:
      - kind: conformity
        rule: The answer apologises.
"""


@pytest.mark.parametrize("executor", ["inprocess", "process"])
def test_repeats_ask_the_judge_again(project: Path, executor: str) -> None:
    (project / "j.scenario.yaml").write_text(JUDGED.lstrip(), encoding="utf-8")
    answers = iter([True, False, True, False, True, False])
    with running_stub() as stub:
        stub.chat = lambda body: OpenAIStub.verdict(next(answers), "judged")
        env = {"CHECKSPEC_API_BASE": stub.base_url, "CHECKSPEC_API_KEY": "sk-test"}
        # One at a time, so the first run is the first to ask.
        one = ("--jobs", "1", "--concurrency", "1")
        args = ("run", "j.scenario.yaml", "--model", "openai/m", "--executor", executor, *one)
        first = cli(project, *args, "--repeat", "3", "--format", "json", env=env)
        assert len(stub.chat_requests) == 3, first.stderr  # each repeat asked the judge
        repeats = json.loads(first.stdout)["scenarios"][0]["repeats"]
        assert (repeats["passed"], repeats["flaky"]) == (2, True)
        # The first run's answer was kept in the verdict cache as any run's; repeats'
        # were not (else this run would be answered "False", the last one).
        again = cli(project, *args, env=env)
        assert len(stub.chat_requests) == 3 and again.returncode == 0, again.stdout
