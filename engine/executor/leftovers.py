"""What user code left behind in the workers' sessions, killed when a pool closes.

Each worker starts a session of its own (pool.py: `start_new_session`), and the pool kills
a worker with its process group. That misses what leaves the group but not the session
(a child user code started with `process_group=0`, or `os.setpgid`), and everything a
worker started before it exited on its own (a retired worker, one that crashed): those
are no longer in the pool's list. A run then ended with processes of its workers still
running. Whatever signal handlers user code installs, SIGKILL is what ends them.

A process is swept when it is in the session of a worker this pool started and carries
the pool's mark in its environment (`CHECKSPEC_WORKER_PARENT=<the pool's pid>`, which
workers and what they start inherit). Both must hold: a session id outlives its leader
and could be reused, the mark could be copied, and neither alone should let a pool kill
a process that is not its own. Linux only (it reads /proc); elsewhere the pool's process
group kill is all there is.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

from . import wire

PROC = Path("/proc")


def _read(path: str) -> bytes | None:
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(descriptor, 1 << 20)
    except OSError:
        return None
    finally:
        os.close(descriptor)


def _session_of(pid: int) -> int | None:
    stat = _read(f"/proc/{pid}/stat")
    if stat is None:
        return None
    # pid (comm) state ppid pgrp session ...: comm may hold spaces and parentheses.
    fields = stat[stat.rfind(b")") + 2 :].split()
    if len(fields) < 4 or fields[0] == b"Z":  # a zombie is dead already
        return None
    return int(fields[3])


def _marked(pid: int, mark: bytes) -> bool:
    environment = _read(f"/proc/{pid}/environ")  # None: gone, or not ours to read
    return environment is not None and mark in environment.split(b"\0")


def left_in(sessions: set[int], parent: int | None = None) -> list[int]:
    """The live processes of `sessions` that carry the mark of the pool in `parent`."""
    if not sessions or not PROC.is_dir():
        return []
    parent = os.getpid() if parent is None else parent
    mark = f"{wire.PARENT_VARIABLE}={parent}".encode()
    found = []
    for name in os.listdir(PROC):
        if not name.isdigit():
            continue
        pid = int(name)
        if pid != os.getpid() and _session_of(pid) in sessions and _marked(pid, mark):
            found.append(pid)
    return found


def sweep(sessions: set[int], wait: float = 2.0) -> list[int]:
    """SIGKILL what is left in `sessions` (see the module's text), and wait up to `wait`
    seconds for it to be gone; the pids killed."""
    killed = left_in(sessions)
    for pid in killed:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + wait
    while killed and time.monotonic() < deadline:
        if all(_session_of(pid) is None for pid in killed):
            break
        time.sleep(0.01)
    return killed
