"""The pre-commit hooks (.pre-commit-hooks.yaml, issue 52 item 5): their `files` regex is
the catalog's file kinds, and pre-commit runs their entries on a good and a bad file.

pre-commit installs a hook repository into an environment of its own (minutes: every
dependency), so here the hooks run as `language: system` from a config made of the hooks
file itself; `make e2e` runs the real `pre-commit try-repo` (tools/pre_commit_try_repo.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from checkspec.engine.catalog import FILE_KINDS
from tests.support.paths import REPO

HOOKS = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
BY_ID = {hook["id"]: hook for hook in HOOKS}

NAMES = [
    f"{folder}{stem}.{kind}.{ext}"
    for folder in ("", "suites/", "a/b/")
    for stem in ("faq", "x.y")
    for kind in ("scenario", "suite", "dataset", "config", "plain")
    for ext in ("yaml", "yml", "json", "jsonl", "txt")
] + ["checkspec.yaml", "checkspec.yml", "sub/checkspec.yaml", "xcheckspec.yaml", "checkspec.json"]


@pytest.mark.parametrize(
    ("hook", "kinds"),
    [("checkspec-validate", None), ("checkspec-run", {"scenario", "suite", "dataset"})],
)
def test_the_hooks_take_exactly_the_catalog_file_kinds(hook: str, kinds: set[str] | None) -> None:
    files = re.compile(BY_ID[hook]["files"])
    specs = [s for s in FILE_KINDS if kinds is None or s.kind.value in kinds]
    for name in NAMES:
        wanted = any(spec.matches(name.rsplit("/", 1)[-1]) for spec in specs)
        assert bool(files.search(name)) is wanted, name


def test_run_is_manual_and_validate_is_not() -> None:
    assert BY_ID["checkspec-run"]["stages"] == ["manual"]
    assert "stages" not in BY_ID["checkspec-validate"]


GOOD = "name: greets\nsteps:\n  - interacts:\n      - inputs: hi\n        outputs: hello\n    checks:\n      - kind: string_matching\n        keyword: hello\n"


def test_pre_commit_runs_validate_on_a_good_and_a_bad_file(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "suites").mkdir(parents=True)
    (repo / "suites" / "good.scenario.yaml").write_text(GOOD)
    (repo / "notes.yaml").write_text("a: [unclosed\n")  # no spec kind: not the hook's
    hook = {**BY_ID["checkspec-validate"], "language": "system"}
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(tmp_path / "home"),
    }

    def pre_commit(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", *args],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    good = pre_commit("run", "--all-files")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "checkspec validate" in good.stdout and "Passed" in good.stdout
    (repo / "suites" / "bad.scenario.yaml").write_text(
        "name: x\nsteps:\n  - checks: [{kind: nope}]\n"
    )
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    bad = pre_commit("run", "--all-files")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "suites/bad.scenario.yaml:3:21: error: unknown check 'nope'" in bad.stdout
    assert "notes.yaml" not in bad.stdout
