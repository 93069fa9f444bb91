"""A local Ray cluster's processes, found and stopped (not `ray stop`: that stops every cluster)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ENV = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


@contextlib.contextmanager
def cluster_temp() -> Iterator[str]:
    """A cluster's own temp folder, short: Ray's socket paths must fit in 107 bytes, and
    pytest's base temp (/tmp/pytest-of-USER/pytest-NNNN/popen-gwN/...) grows with each
    run on the machine until they do not. Whatever the cluster left is stopped after."""
    temp = tempfile.mkdtemp(prefix="cs-ray-", dir="/tmp")
    try:
        yield temp
    finally:
        _stop(Path(temp))
        shutil.rmtree(temp, ignore_errors=True)


def _stop(temp: Path) -> None:
    """Kill this cluster's processes only (`ray stop` would stop every cluster here): those
    naming its temp folder, and those that renamed themselves (`ray::IDLE`,
    `ray::DashboardAgent`) but run in a folder under it or write its log files."""
    for _ in range(2):  # again, for what was starting during the first pass
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit() and _of_cluster(proc, str(temp)):
                with contextlib.suppress(OSError):
                    os.kill(int(proc.name), signal.SIGKILL)
        time.sleep(0.5)


def _of_cluster(proc: Path, temp: str) -> bool:
    with contextlib.suppress(OSError):
        if temp.encode() in (proc / "cmdline").read_bytes():
            return True
    with contextlib.suppress(OSError):
        if os.readlink(proc / "cwd").startswith(temp):
            return True
    with contextlib.suppress(OSError):
        return any(os.readlink(fd).startswith(temp) for fd in (proc / "fd").iterdir())
    return False
