"""`checkspec view` started in a subprocess as users start it, and what it prints: the
host, port and per-start token of the URL on its first line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.support.processes import default_sigint

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]
URL = re.compile(r"http://(127\.0\.0\.1):(\d+)/\?token=([\w-]+) ")


def start_view(folder: Path) -> tuple[subprocess.Popen[str], str, int, str]:
    """The viewer of `folder` on a free port: its process, host, port and token (the
    caller stops the process)."""
    process = subprocess.Popen(
        [*CLI, "view", "--port", "0"],
        preexec_fn=default_sigint,
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = URL.search(line)
    if not found:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        assert process.stderr is not None
        raise AssertionError(line + process.stderr.read())
    return process, found.group(1), int(found.group(2)), found.group(3)
