"""The CI integrations (issue 52 item 6): the GitHub Action (action.yml) and the GitLab CI
template (ci/gitlab-ci.yml) run their steps as the runner would (their `run`/`script`
lines in bash, with the runner's variables set) on a copy of the example workspace:
results written, the summary in $GITHUB_STEP_SUMMARY, failing on new failures only.

Steps that need the network are not run: `actions/*` (setup-python, upload-artifact), the
pip install (checkspec is installed here) and the template's download of the script
(the repository's copy is used)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from tests.support.paths import EXAMPLES, REPO

ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
GITLAB = yaml.safe_load((REPO / "ci" / "gitlab-ci.yml").read_text(encoding="utf-8"))["checkspec"]
BIN = str(Path(sys.executable).parent)


def _expression(value: str, inputs: dict[str, str]) -> str:
    """`${{ inputs.X }}` as GitHub renders it (the input, else its default)."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        return inputs.get(name, str(ACTION["inputs"][name].get("default", "")))

    return re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", one, value)


def run_action(workspace: Path, summary: Path, **inputs: str) -> subprocess.CompletedProcess[str]:
    """The action's `run` steps after the install, in order, as the runner runs them."""
    ran = None
    for step in ACTION["runs"]["steps"]:
        if "uses" in step or step.get("name") == "Install checkspec":
            continue
        env = {
            **os.environ,
            "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
            "GITHUB_ACTIONS": "true",
            "GITHUB_ACTION_PATH": str(REPO),
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_STEP_SUMMARY": str(summary),
            **{k: _expression(str(v), inputs) for k, v in step.get("env", {}).items()},
        }
        ran = subprocess.run(
            ["bash", "-c", step["run"]],
            cwd=workspace,
            env={k: v for k, v in env.items() if not k.startswith("CHECKSPEC_MODEL")},
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert ran is not None
    return ran


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns(".checkspec"))
    return copy


def test_the_action_writes_its_results_and_fails_as_the_run_does(
    workspace: Path, tmp_path: Path
) -> None:
    summary = tmp_path / "summary.md"
    done = run_action(workspace, summary)
    assert done.returncode == 1, done.stdout + done.stderr  # an example fails on purpose
    out = workspace / "checkspec-results"
    report = json.loads((out / "report.json").read_text())
    suites = ET.parse(out / "junit.xml").getroot()
    failures = sum(int(s.get("failures", 0)) for s in suites.iter("testsuite"))
    assert failures >= 1 and report["summary"]["fail"] == failures
    assert (out / "report.html").read_text().lstrip().lower().startswith("<!doctype html")
    assert summary.read_text().startswith("### checkspec run")


def test_with_a_baseline_only_new_failures_fail(workspace: Path, tmp_path: Path) -> None:
    first = run_action(workspace, tmp_path / "first.md", output="base")
    assert first.returncode == 1
    same = run_action(workspace, tmp_path / "same.md", baseline="base/report.json")
    assert same.returncode == 0, same.stdout + same.stderr  # the same failures: none new
    assert (
        "newly fail" in (tmp_path / "same.md").read_text().lower()
        or (tmp_path / "same.md").read_text().strip()
    )
    # A check that passed in the baseline fails now: that is a new failure.
    refund = workspace / "refund.scenario.yaml"
    refund.write_text(refund.read_text().replace("keyword: refund", "keyword: zzz-nowhere", 1))
    worse = run_action(workspace, tmp_path / "worse.md", baseline="base/report.json")
    assert worse.returncode == 1, worse.stdout + worse.stderr
    worse_summary = (tmp_path / "worse.md").read_text()
    assert "newly failing" in worse_summary and "nothing newly failing" not in worse_summary
    assert "zzz-nowhere" in worse_summary


def test_an_input_error_keeps_its_code_and_compares_nothing(
    workspace: Path, tmp_path: Path
) -> None:
    done = run_action(workspace, tmp_path / "s.md", selection="no-such-folder", baseline="x.json")
    assert done.returncode == 2, done.stdout + done.stderr
    assert not (tmp_path / "s.md").exists()


def test_the_gitlab_template_runs_the_same_script(workspace: Path, tmp_path: Path) -> None:
    assert GITLAB["artifacts"]["reports"]["junit"] == "$CHECKSPEC_OUT/junit.xml"
    lines = []
    for line in GITLAB["script"]:
        if "pip install" in line:
            continue
        if line.startswith("curl "):  # the template's download of the script: ours
            line = f"cp {REPO / 'ci' / 'checkspec-ci.sh'} {line.split(' -o ')[-1]}"
        lines.append(line)
    env = {
        **os.environ,
        **{k: str(v) for k, v in GITLAB["variables"].items()},
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "GITLAB_CI": "true",
    }
    env.pop("GITHUB_STEP_SUMMARY", None)
    done = subprocess.run(
        ["bash", "-ec", "\n".join(lines)],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert ET.parse(workspace / "checkspec-results" / "junit.xml").getroot() is not None
