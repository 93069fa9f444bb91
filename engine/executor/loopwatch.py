"""Stops the scenario whose async code holds a worker's event loop past its deadline.

Synchronous user code runs in a thread of its own (engine/core/user_thread.py), so it
cannot block the loop. An `async def` check or target that blocks anyway (`time.sleep`,
a CPU loop) holds the whole loop: no timer fires, so every scenario of the worker would
pass its deadline, the parent would kill the worker and re-run them all alone, the stuck
one burning a second timeout (issue 36).

So each worker watches its own loop:

- the job running right now is known from a context variable, set around each job's
  code (tasks the job starts inherit it), and read in the main thread, where the loop
  runs, at the moment the loop is held;
- a heartbeat on the loop records when it last turned;
- a watchdog thread wakes at the next deadline. When a job is past it and the loop has
  not turned for `STALE` seconds, it signals the main thread (`SIGNAL`, again every
  `POLL` seconds while that lasts). The handler raises `LoopHeld` there, but only when
  the code holding the loop is of a job past its deadline: a signal that finds the loop
  idle, or held by a job still within its time, changes nothing (a sleep interrupted by
  it goes on, PEP 475);
- the job ends as ERROR with the wording of every other timeout, the loop turns again,
  and the scenarios it held still have the time it held them: their deadlines, here and
  in the parent (an `extend` message), move by that much. They finish, not re-run.

Code that no signal interrupts (a C call holding the GIL) is still stopped by the
parent's kill after its grace period. The handler is installed only by worker processes
(worker.main), never by the CLI or the language server.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import signal
import threading
import time
from collections.abc import Callable, Iterator

SIGNAL = getattr(signal, "SIGUSR2", None)
BEAT = 0.1  # the heartbeat's period while jobs run
STALE = 0.3  # the loop has not turned for this long: something holds it
POLL = 0.05  # while a late job may hold the loop: signal this often

_running_job: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "checkspec_running_job", default=None
)


class LoopHeld(BaseException):
    """Raised in a scenario's code that holds the worker's event loop past its deadline.

    A BaseException, as CancelledError: user code's `except Exception` lets it through."""


class LoopWatch:
    """The deadlines of the jobs running on one loop, and the watchdog that enforces them
    when the loop is held. `on_extend` is called on the loop with the seconds each other
    job was held up by a job stopped for holding the loop."""

    def __init__(self, on_extend: Callable[[dict[int, float]], None]) -> None:
        self._on_extend = on_extend
        self._deadlines: dict[int, asyncio.Timeout] = {}
        self._changed = threading.Condition()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_turn = time.monotonic()
        self._beating = False
        self._culprit: int | None = None  # the job stopped for holding the loop
        self._main = threading.main_thread().ident

    @staticmethod
    def available() -> bool:
        return SIGNAL is not None and hasattr(signal, "pthread_kill")

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        """Watch `loop`, which runs in this (the main) thread. Worker processes only."""
        if not self.available() or threading.get_ident() != self._main:
            return
        assert SIGNAL is not None
        self._loop = loop
        signal.signal(SIGNAL, self._on_signal)
        threading.Thread(target=self._watch, name="checkspec-loopwatch", daemon=True).start()

    @contextlib.contextmanager
    def watching(self, key: int, deadline: asyncio.Timeout) -> Iterator[None]:
        """Around a job's code, on the loop: `deadline` is its own (asyncio.timeout)."""
        token = _running_job.set(key)
        with self._changed:
            self._deadlines[key] = deadline
            if len(self._deadlines) == 1:
                # Only then: the deadline of a job starting now is never the next one
                # when others run (one timeout for all, and extensions only push them).
                self._changed.notify()
        if self._loop is not None and not self._beating:
            self._beating = True
            self._last_turn = time.monotonic()
            self._loop.call_later(BEAT, self._beat)
        try:
            yield
        finally:
            _running_job.reset(token)  # first: a signal from now on finds no job running
            with self._changed:
                self._deadlines.pop(key, None)

    # On the loop ----------------------------------------------------------------------

    def _beat(self) -> None:
        now = time.monotonic()
        held = now - self._last_turn
        self._last_turn = now
        culprit, self._culprit = self._culprit, None
        if culprit is not None:
            # The others could not run while it held the loop: give them that time back
            # (their timers are due behind this one, so none has fired yet).
            extended: dict[int, float] = {}
            for key, deadline in list(self._deadlines.items()):
                when = deadline.when()
                if key == culprit or when is None:
                    continue
                with contextlib.suppress(RuntimeError):  # already expired: too late
                    deadline.reschedule(when + held)
                    extended[key] = held
            if extended:
                self._on_extend(extended)
        if self._deadlines and self._loop is not None:
            self._loop.call_later(BEAT, self._beat)
        else:
            self._beating = False

    # In the main thread, between two bytecodes of whatever holds the loop ---------------

    def _on_signal(self, signum: int, frame: object) -> None:
        key = _running_job.get()
        if key is None or self._loop is None:
            return  # the loop itself, or code outside any job
        deadline = self._deadlines.get(key)
        when = deadline.when() if deadline is not None else None
        now = time.monotonic()
        if when is None or now < when or now - self._last_turn < STALE:
            return  # within its time, or the loop turns and its own timer stops it
        self._culprit = key
        raise LoopHeld(key)

    # The watchdog thread ----------------------------------------------------------------

    def _watch(self) -> None:
        assert SIGNAL is not None and self._main is not None
        while True:
            with self._changed:
                while not self._deadlines:
                    self._changed.wait()
                whens = [d.when() for d in self._deadlines.values()]
                first = min((w for w in whens if w is not None), default=None)
                now = time.monotonic()
                if first is None or now < first:
                    self._changed.wait(None if first is None else first - now)
                    continue
            if now - self._last_turn >= STALE:
                signal.pthread_kill(self._main, SIGNAL)
            time.sleep(POLL)
