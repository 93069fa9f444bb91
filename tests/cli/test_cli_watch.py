"""`checkspec run --watch`: a run, then a run of each changed spec file, until Ctrl-C."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from checkspec.engine.cli.watch import paths_to_run, watched_roots
from tests.support.processes import default_sigint

PASSING = (
    "name: watched\nsteps:\n  - interacts: [{inputs: hi, outputs: hello}]\n"
    "    checks: [{kind: string_matching, keyword: hello}]\n"
)


def read_until(proc: subprocess.Popen[str], needle: str, seen: list[str], timeout: float = 30):
    """Lines of stdout and stderr until one holds `needle`."""
    selector = selectors.DefaultSelector()
    for stream in (proc.stdout, proc.stderr):
        assert stream is not None
        os.set_blocking(stream.fileno(), False)
        selector.register(stream, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            for key, _ in selector.select(0.2):
                chunk = key.fileobj.read()  # type: ignore[union-attr]
                if chunk:
                    seen.append(chunk)
            if needle in "".join(seen):
                return
            if proc.poll() is not None:
                break
    finally:
        selector.close()
    raise AssertionError(f"{needle!r} never came; got:\n{''.join(seen)}")


def test_watch_runs_a_changed_file_again_until_interrupted(tmp_path: Path) -> None:
    spec = tmp_path / "w.scenario.yaml"
    spec.write_text(PASSING)
    proc = subprocess.Popen(
        [sys.executable, "-m", "checkspec.engine.cli.main", "run", "--watch", str(tmp_path)],
        preexec_fn=default_sigint,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        start_new_session=True,
    )
    seen: list[str] = []
    try:
        read_until(proc, "watching", seen)
        assert "1 passed" in "".join(seen)
        seen.clear()
        spec.write_text(PASSING.replace("keyword: hello", "keyword: goodbye"))
        read_until(proc, "1 failed", seen)
        assert "changed: running" in "".join(seen)
        read_until(proc, "watching", seen)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 1  # the last run's exit code: a failure
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


def test_what_runs_again_for_which_change(tmp_path: Path) -> None:
    folder = tmp_path / "specs"
    folder.mkdir()
    spec = folder / "a.scenario.yaml"
    spec.write_text(PASSING)
    (tmp_path / "checkspec.yaml").write_text("")
    given = [str(folder)]
    assert paths_to_run(given, [spec], set()) == [str(spec)]
    assert paths_to_run(given, [tmp_path / "agent.py"], set()) == given
    assert paths_to_run(given, [tmp_path / "checkspec.yaml"], set()) == given
    assert paths_to_run(given, [tmp_path / "report.json", tmp_path / "notes.txt"], set()) == []
    assert paths_to_run(given, [folder / ".checkspec" / "x.py"], set()) == []
    assert watched_roots(given) == [tmp_path.resolve()]  # the workspace root holds the folder
