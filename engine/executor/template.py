"""A pool's worker template (Linux): one process that has imported what every worker
imports, and forks each worker of its pool, so that a worker's start is a fork instead of
an interpreter's start and the engine's imports (0.3 CPU-s a worker; bench/README.md).

Started by the pool (pool.py `_Template`) as `python -m checkspec.engine.executor.template
FD`, FD its end of a Unix socket pair, in the environment workers get. The pool sends one
byte, `F`, with three descriptors: the worker's stdin, stdout and stderr. The template
forks; the child makes them its 0, 1 and 2, starts a session of its own (the pool kills a
worker's whole session) and runs worker.main(). The template answers `P` and the child's
pid, and `X`, the pid and its exit code (negative: the signal) when it has reaped it.

Nothing of a workspace is imported here: each worker imports the user's modules after the
fork, afresh, as a worker started from scratch does. The template ends when the pool's
end of the socket closes, or with the pool's process (a parent-death signal, as workers);
its workers die with it (theirs is the template): the pool then counts them as killed.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import struct
import sys

from . import jobs, worker

RECORD = struct.Struct("!cii")  # kind (P or X), pid, exit code
FORK = b"F"

_KEEP = (jobs,)  # imported for the workers: what a forked worker finds loaded


def _reap(sock: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        sock.sendall(RECORD.pack(b"X", pid, os.waitstatus_to_exitcode(status)))


def _child(descriptors: list[int], template: int) -> None:
    """In the forked child: become a worker (never returns)."""
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        for target, fd in enumerate(descriptors):
            os.dup2(fd, target)
        for name in os.listdir("/proc/self/fd"):  # the template's socket, pipe and copies
            if int(name) > 2:
                with contextlib.suppress(OSError):
                    os.close(int(name))
        worker.main(parent=template)
    finally:
        os._exit(70)  # worker.main leaves with os._exit: here only if it raised


def main() -> None:
    worker.die_with_parent()
    sock = socket.socket(fileno=int(sys.argv[1]))
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # the wake-up byte is what counts
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the pool's to handle
    while True:
        readable, _, _ = select.select([sock.fileno(), wake_r], [], [])
        if wake_r in readable:
            os.read(wake_r, 512)
            _reap(sock)
        if sock.fileno() in readable:
            message, descriptors, _, _ = socket.recv_fds(sock, 1, 3)
            if not message:  # the pool closed its end
                return
            if message != FORK or len(descriptors) != 3:
                for fd in descriptors:
                    os.close(fd)
                continue
            template = os.getpid()
            pid = os.fork()
            if pid == 0:
                _child(descriptors, template)
            for fd in descriptors:
                os.close(fd)
            sock.sendall(RECORD.pack(b"P", pid, 0))


if __name__ == "__main__":
    main()
