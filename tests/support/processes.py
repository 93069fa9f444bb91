"""Processes of the tests: the command line, files a spec's code runs, waiting for pids to end."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "checkspec.engine.cli.main"]

# What a pytest started by a test is given: it loads the plugins a user's would, less two
# of this repository's own test tools that took most of its start (0.55 of 1.3 CPU-s) and
# that checkspec's plugin never meets: pytest-lsp (the LSP tests' client) and hypothesis.
# tests/engine/test_pytest_plugin.py's `test_enabled_with_ini_option` loads every one.
LEAN_PYTEST = ("-p", "no:pytest-lsp", "-p", "no:hypothesispytest")


def pytest_command(*args: str) -> list[str]:
    """The command line of a pytest run in a process of its own, LEAN_PYTEST's."""
    return [sys.executable, "-m", "pytest", *LEAN_PYTEST, *args]


def default_sigint() -> None:
    """`Popen(preexec_fn=default_sigint)`: the child gets Ctrl-C as from a terminal. A test
    run started in the background of a non-interactive shell (`make test &`) inherits
    SIGINT ignored, and Python keeps an ignored SIGINT ignored: a test that sends SIGINT
    would then wait for an exit that never comes."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


CHECKS = """
import os, re
from pathlib import Path

HERE = Path(__file__).parent

def spin(trace):
    while True:  # holds its thread for good (a sync check runs off the event loop)
        pass

async def spin_on_loop(trace):
    while True:  # holds the worker's event loop itself for good
        pass

def backtracks(trace):
    (HERE / f"regex-{os.getpid()}").write_text("")
    # Exponential backtracking inside the C regex engine: the GIL is never released.
    return re.match(r"(a+)+$", "a" * 40 + "b") is None

async def backtracks_on_loop(trace):
    # The same on the worker's event loop: no signal handler runs until it returns.
    return re.match(r"(a+)+$", "a" * 40 + "b") is None
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purposes
        return "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False


def wait_gone(pids: set[int], seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while pids := {pid for pid in pids if alive(pid)}:
        if time.monotonic() > deadline:
            for pid in pids:  # do not leave them to the next test
                os.kill(pid, signal.SIGKILL)
            pytest.fail(f"processes still running: {pids}")
        time.sleep(0.05)
