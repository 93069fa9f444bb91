"""`checkspec init` given hostile values and a hostile folder (issue 48 item 5): a line
break in --model or --target would start keys of its own in checkspec.yaml (`api_base:`
taking the key, `python:` starting the workers); a `.checkspec/` or `suites/` linked out
of the new workspace would have init write there; an immutable folder gave a traceback.
Real processes of the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHECKSPEC_")}
    return subprocess.run(
        [*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env
    )


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--model", "gpt-4o-mini\napi_base: http://evil.example/v1"),
        ("--model", "gpt-4o-mini\r\napi_base: http://evil.example/v1"),
        ("--model", "gpt-4o-mini\u2028api_base: http://evil.example/v1"),
        ("--model", "gpt-4o-mini\x85api_base: http://evil.example/v1"),
        ("--target", "python:agent:answer\npython: /tmp/evil/python"),
        ("--target", "http://host/x\napi_base: http://evil.example/v1"),
    ],
    ids=["LF", "CRLF", "U+2028", "U+0085", "target-python", "target-url"],
)
def test_a_line_break_in_a_value_is_refused(tmp_path: Path, option: str, value: str) -> None:
    done = cli(tmp_path, "init", "ws", option, value)
    assert done.returncode == 2
    assert f"error: {option}: a line break or control character (U+" in done.stderr
    assert not (tmp_path / "ws").exists()


def test_a_value_that_reads_as_yaml_is_written_quoted(tmp_path: Path) -> None:
    model = "gpt #: api_base: http://evil.example/v1"
    done = cli(tmp_path, "init", "ws", "--model", model, "--target", "http://h/x #c")
    assert done.returncode == 0, done.stderr
    config = yaml.safe_load((tmp_path / "ws" / "checkspec.yaml").read_text())
    assert config["model"] == model and config["target"] == "http://h/x #c"
    settings = cli(tmp_path / "ws", "settings", "--format", "json")
    assert settings.returncode == 0, settings.stderr
    shown = {row["name"]: row for row in json.loads(settings.stdout)}
    text = (tmp_path / "ws" / "checkspec.yaml").read_text().splitlines()
    line = next(n for n, t in enumerate(text, 1) if t.startswith("model:"))  # the one key line
    assert shown["model"]["value"] == model
    assert shown["model"]["origin"] == f"checkspec.yaml:{line}"
    assert shown["api_base"]["value"] is None and shown["api_base"]["origin"] == "default"


def test_a_target_that_is_not_one_is_refused(tmp_path: Path) -> None:
    done = cli(tmp_path, "init", "ws", "--target", "agent.answer")
    assert done.returncode == 2
    assert "error: unknown target 'agent.answer'" in done.stderr
    assert not (tmp_path / "ws").exists()


@pytest.mark.parametrize("linked", [".checkspec", "suites", ".checkspec/schemas"])
def test_a_linked_folder_out_of_the_workspace_gets_nothing(tmp_path: Path, linked: str) -> None:
    outside = tmp_path / "home"
    outside.mkdir()
    workspace = tmp_path / "ws"
    (workspace / linked).parent.mkdir(parents=True, exist_ok=True)
    (workspace / linked).symlink_to(outside, target_is_directory=True)
    done = cli(tmp_path, "init", "ws")
    assert done.returncode == 2
    assert f"ws/{linked}, a link out of the workspace (to {outside}/" in done.stderr
    assert "init wrote nothing" in done.stderr
    assert list(outside.iterdir()) == []
    assert not (workspace / "checkspec.yaml").exists()


@pytest.fixture
def immutable(tmp_path: Path) -> Iterator[Path]:
    """An immutable folder (chattr +i), taken back after the test."""
    folder = tmp_path / "frozen"
    folder.mkdir()
    made = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, check=False)
    if made.returncode != 0:
        pytest.skip("chattr +i is not available here")
    yield folder
    subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_an_immutable_folder_is_named_not_a_traceback(immutable: Path) -> None:
    done = cli(immutable.parent, "init", immutable.name)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"error: {immutable.name}/checkspec.yaml: operation not permitted" in done.stderr


def test_a_failure_half_way_takes_back_what_init_wrote(tmp_path: Path) -> None:
    state = tmp_path / ".checkspec"
    state.mkdir()
    made = subprocess.run(["chattr", "+i", str(state)], capture_output=True, check=False)
    if made.returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        done = cli(tmp_path, "init")
    finally:
        subprocess.run(["chattr", "-i", str(state)], check=True)
    assert done.returncode == 2
    assert ".checkspec/.gitignore: operation not permitted" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [".checkspec"]
