"""`checkspec generate --settings-from-stdin` (the language server's way of handing a
generation its resolved settings) reads data, never code: a pickle that would run a
command when unpickled is refused as not JSON, and the command it carries never runs."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

from checkspec.engine.settings import resolve, resolved_from_json, resolved_to_json

CLI = (sys.executable, "-m", "checkspec.engine.cli.main")


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def test_a_pickle_on_stdin_is_refused_and_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nSome text about a thing.\n")
    done = subprocess.run(
        [*CLI, "generate", "--from-docs", "docs", "--list-chunks", "--settings-from-stdin"],
        input=pickle.dumps(_Payload(marker)),
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert b"--settings-from-stdin" in done.stderr
    assert b"Traceback" not in done.stderr
    assert not marker.exists()


def test_the_settings_round_trip_as_json(tmp_path: Path) -> None:
    resolved = resolve(environ={"CHECKSPEC_MODEL": "openai/x", "CHECKSPEC_MAX_COST": "0.5"})
    data = resolved_to_json(resolved)
    assert data.startswith(b"{")
    assert resolved_from_json(data) == resolved
