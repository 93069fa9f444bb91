"""Recording the git state of a run runs nothing the workspace's .git/config names
(issue 36): no fsmonitor hook, no hook, no clean filter. The repository's commit and
dirtiness are still told."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import time
from pathlib import Path

import pytest

from checkspec.engine.history.payload import git_state

pytestmark = pytest.mark.skipif(shutil.which("git") is None or os.name == "nt", reason="git and sh")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def hostile_repo(root: Path) -> Path:
    repo = root / "ws"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "a@b.c")
    git(repo, "config", "user.name", "a")
    (repo / "a.txt").write_text("one\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-qm", "first")
    hook = root / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {root}/ran-$(basename $0)-$1\ncat\n")
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    git(repo, "config", "core.fsmonitor", str(hook))
    git(repo, "config", "filter.evil.clean", f"sh -c 'touch {root}/ran-filter; cat'")
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    shutil.copy(hook, hooks / "post-index-change")
    (repo / ".gitattributes").write_text("* filter=evil\n")
    later = time.time() + 5
    os.utime(repo / "a.txt", (later, later))  # the same text, its stat changed
    return repo


def test_git_state_runs_no_fsmonitor_hook_or_filter_from_the_workspace(tmp_path: Path) -> None:
    repo = hostile_repo(tmp_path)
    # What a plain `git status` would do here: run the workspace's commands.
    subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, check=False)
    assert sorted(p.name for p in tmp_path.glob("ran-*")), "the repository must be hostile"
    for ran in tmp_path.glob("ran-*"):
        ran.unlink()
    git_state.cache_clear()
    state = git_state(str(repo))
    assert state is not None and len(state["commit"]) == 40
    assert sorted(p.name for p in tmp_path.glob("ran-*")) == []
