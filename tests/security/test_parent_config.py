"""A checkspec.yaml of another user, in a parent folder, governs nothing (issue 48 item 1).

The attack: a workspace with no config of its own under a shared folder picks up the
other user's checkspec.yaml, whose `python:` starts the workers, whose `target:` is
imported and whose `api_base` receives the key. As git refuses a repository another user
owns (safe.directory), checkspec refuses the file: exit 2 with how to trust it, in the
CLI, the pytest plugin and the language server; nothing of the file takes effect.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from checkspec.engine.spec.trust import TRUSTED_FOLDERS_ENV, untrusted_reason
from checkspec.engine.spec.workspace import find_workspace
from tests.support.processes import pytest_command

NOBODY = 65534
SCENARIO = textwrap.dedent(
    """\
    name: greets
    steps:
      - interacts:
          - inputs: hello
        checks:
          - kind: string_matching
            keyword: hi
    """
)
as_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file away needs root"
)


def planted(shared: Path) -> tuple[Path, Path]:
    """A shared folder holding another user's checkspec.yaml, whose interpreter, target
    module and endpoint would each leave a marker if they ran; my workspace below it."""
    shared.mkdir()
    marker = shared / "ran"
    evil_python = shared / "python.sh"
    evil_python.write_text(f'#!/bin/sh\necho python >> {marker}\nexec {sys.executable} "$@"\n')
    evil_python.chmod(0o755)
    (shared / "evil.py").write_text(
        f"open({str(marker)!r}, 'a').write('target\\n')\ndef answer(q):\n    return 'hi'\n"
    )
    (shared / "checkspec.yaml").write_text(
        f"python: {evil_python}\ntarget: python:evil:answer\napi_base: http://127.0.0.1:9/v1\n"
    )
    mine = shared / "mine"
    (mine / "suites").mkdir(parents=True)
    (mine / "suites" / "greets.scenario.yaml").write_text(SCENARIO)
    for path in (shared, shared / "checkspec.yaml", shared / "evil.py", evil_python):
        os.chown(path, NOBODY, NOBODY)
    return mine, marker


def given_away(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`path` another user's: given to nobody (as root), else this process taken for
    another user (a root-owned file would be trusted by all)."""
    if os.geteuid() == 0:
        os.chown(path, NOBODY, NOBODY)
    else:
        owner = os.stat(path).st_uid
        monkeypatch.setattr(os, "geteuid", lambda: owner + 1000)


def cli(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CHECKSPEC_")}
    return subprocess.run(
        [sys.executable, "-m", "checkspec.engine.cli.main", *args],
        cwd=cwd,
        env={**clean, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_file_of_another_user_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In-process, with this process taken for another user: the workspace holds none of
    the file's settings, and one problem that says whose it is and how to trust it."""
    (tmp_path / "checkspec.yaml").write_text("target: python:evil:answer\nmodel: x/y\n")
    given_away(tmp_path / "checkspec.yaml", monkeypatch)
    monkeypatch.delenv(TRUSTED_FOLDERS_ENV, raising=False)
    workspace = find_workspace([tmp_path])
    assert workspace.config.target is None and workspace.config.model is None
    (problem,) = workspace.problems
    assert problem.code == "untrusted-config" and TRUSTED_FOLDERS_ENV in problem.message


def test_root_and_the_user_are_trusted_and_the_variable_trusts_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "sub" / "checkspec.yaml"
    config.parent.mkdir()
    config.write_text("model: x/y\n")
    monkeypatch.delenv(TRUSTED_FOLDERS_ENV, raising=False)
    assert untrusted_reason(config) is None  # mine
    given_away(config, monkeypatch)
    assert "belongs to" in (untrusted_reason(config) or "")
    for trusted in (str(tmp_path), "*", f"/nowhere{os.pathsep}{tmp_path / 'sub'}"):
        assert untrusted_reason(config, {TRUSTED_FOLDERS_ENV: trusted}) is None
    assert untrusted_reason(config, {TRUSTED_FOLDERS_ENV: str(tmp_path / "other")})


@as_root
@pytest.mark.parametrize("command", [("run", "suites"), ("validate", "suites"), ("settings",)])
def test_the_cli_refuses_a_parent_config_of_another_user(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    mine, marker = planted(tmp_path / "shared")
    done = cli(mine, *command)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "belongs to" in done.stderr and "uid 65534" in done.stderr
    assert f"{TRUSTED_FOLDERS_ENV}=" in done.stderr
    assert not marker.exists(), marker.read_text()  # no interpreter, no target ran
    assert "127.0.0.1:9" not in done.stdout


@as_root
def test_trusting_the_folder_puts_the_file_in_force(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    mine, _ = planted(shared)
    done = cli(mine, "settings", env={TRUSTED_FOLDERS_ENV: str(shared)})
    assert done.returncode == 0, done.stderr
    assert "python:evil:answer" in done.stdout and "checkspec.yaml:2" in done.stdout


@as_root
def test_the_pytest_plugin_refuses_it_too(tmp_path: Path) -> None:
    mine, marker = planted(tmp_path / "shared")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CHECKSPEC_")}
    done = subprocess.run(
        pytest_command("-p", "checkspec", "-p", "no:cacheprovider", "suites"),
        cwd=mine,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 4, done.stdout + done.stderr  # a usage error
    assert "belongs to" in done.stderr
    assert not marker.exists()
