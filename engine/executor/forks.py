"""The pool's side of its worker template (template.py): start it, ask it for workers, and
learn from it when they end.

A forked worker is not the pool's child: `ForkedProcess` gives the pool what it reads of
an asyncio subprocess (pid, stdin, stdout, stderr, returncode), the returncode set when
the template says it reaped the worker. If the template itself ends, every worker it
forked has ended with it (their parent-death signal): each is given -SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections import deque
from collections.abc import Mapping

from .template import FORK, RECORD

TEMPLATE_MODULE = "checkspec.engine.executor.template"
ANSWER_TIMEOUT = 10.0  # a fork answered later than this: the template is of no use
CLOSE_WAIT = 2.0  # for the template to leave on its own once the pool closes


def available() -> bool:
    """Whether workers can be forked from a template here (Linux: fork, descriptors passed
    over a Unix socket, a parent-death signal)."""
    return sys.platform.startswith("linux") and hasattr(socket, "send_fds")


class TemplateGone(Exception):
    """The template did not answer: start the worker the plain way."""


class ForkedProcess:
    """A worker the template forked, as the pool reads an asyncio subprocess."""

    def __init__(
        self,
        pid: int,
        stdin: asyncio.StreamWriter,
        stdout: asyncio.StreamReader,
        stderr: asyncio.StreamReader,
    ) -> None:
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.returncode: int | None = None


class Template:
    """One pool's template process and its socket."""

    def __init__(self, process: asyncio.subprocess.Process, sock: socket.socket) -> None:
        self._process = process
        self._sock = sock
        self._answers: deque[asyncio.Future[int]] = deque()
        self._forked: dict[int, ForkedProcess] = {}
        self._early: dict[int, int] = {}  # exits read before their fork's answer was used
        self._lock = asyncio.Lock()  # one fork asked at a time: answers come in order
        self.gone = False
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, python: str, env: Mapping[str, str]) -> Template:
        """The template, started (OSError: the interpreter cannot be run)."""
        ours, theirs = socket.socketpair()
        try:
            process = await asyncio.create_subprocess_exec(
                python,
                "-m",
                TEMPLATE_MODULE,
                str(theirs.fileno()),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
                env=dict(env),
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.setblocking(False)
        return cls(process, ours)

    async def fork(self, limit: int) -> ForkedProcess:
        """A new worker, its pipes this process's ends. Raises TemplateGone."""
        loop = asyncio.get_running_loop()
        async with self._lock:
            if self.gone:
                raise TemplateGone
            stdin_r, stdin_w = os.pipe()
            stdout_r, stdout_w = os.pipe()
            stderr_r, stderr_w = os.pipe()
            answer: asyncio.Future[int] = loop.create_future()
            self._answers.append(answer)
            try:
                socket.send_fds(self._sock, [FORK], [stdin_r, stdout_w, stderr_w])
                pid = await asyncio.wait_for(asyncio.shield(answer), ANSWER_TIMEOUT)
            except (OSError, TimeoutError, TemplateGone):
                for fd in (stdin_w, stdout_r, stderr_r):
                    os.close(fd)
                self._end()
                raise TemplateGone from None
            finally:
                for fd in (stdin_r, stdout_w, stderr_w):  # the child's: it has them now
                    os.close(fd)
        stdout = await _reader(loop, stdout_r, limit)
        stderr = await _reader(loop, stderr_r, limit)
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(stdin_w, "wb", buffering=0)
        )
        stdin = asyncio.StreamWriter(transport, protocol, None, loop)
        process = ForkedProcess(pid, stdin, stdout, stderr)
        self._forked[pid] = process
        if pid in self._early:
            process.returncode = self._early.pop(pid)
        elif self.gone and process.returncode is None:
            # The template ended while this worker's pipes were being set up (`_end` did
            # not know it yet): the worker went with it, and no exit will be reported.
            process.returncode = -signal.SIGKILL
        return process

    async def _read(self) -> None:
        loop = asyncio.get_running_loop()
        buffer = b""
        try:
            while True:
                chunk = await loop.sock_recv(self._sock, 4096)
                if not chunk:
                    break
                buffer += chunk
                while len(buffer) >= RECORD.size:
                    kind, pid, code = RECORD.unpack(buffer[: RECORD.size])
                    buffer = buffer[RECORD.size :]
                    if kind == b"P" and self._answers:
                        answer = self._answers.popleft()
                        if not answer.done():
                            answer.set_result(pid)
                    elif kind == b"X":
                        forked = self._forked.pop(pid, None)
                        if forked is None:
                            self._early[pid] = code
                        else:
                            forked.returncode = code
        except (OSError, asyncio.CancelledError):
            pass
        self._end()

    def _end(self) -> None:
        """The template is of no use: the workers it forked are gone with it."""
        if self.gone:
            return
        self.gone = True
        for answer in self._answers:
            if not answer.done():
                answer.set_exception(TemplateGone())
        self._answers.clear()
        if self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signal.SIGKILL)
        for forked in self._forked.values():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(forked.pid, signal.SIGKILL)
            if forked.returncode is None:
                forked.returncode = -signal.SIGKILL
        self._forked.clear()

    async def aclose(self) -> None:
        """End the template (after the pool's workers: they die with it). Its end of the
        socket reads the end of ours and it exits on its own (coverage.py saves what it
        measured there); one that does not within CLOSE_WAIT is killed."""
        if not self.gone:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_WR)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._reader), CLOSE_WAIT)
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        self._sock.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._process.wait(), CLOSE_WAIT)
        if self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signal.SIGKILL)
            await self._process.wait()


async def _reader(loop: asyncio.AbstractEventLoop, fd: int, limit: int) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(fd, "rb", buffering=0)
    )
    return reader
