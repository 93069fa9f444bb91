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
  not turned for `STALE` seconds, it signals the main thread (`SIGNAL`). The handler
  raises `LoopHeld` there only when the code holding the loop is of a job past its own
  deadline: then it is signalled again every `POLL` seconds until it lets go. Code
  within its time, or of no job, is left alone (a sleep the signal interrupts goes on,
  PEP 475) and not signalled again before it is late itself;
- a job stopped that way ends as ERROR with the wording of every other timeout. The
  loop turns again, and the jobs that could not run while it was held (by a job late
  or not) get that time back: their deadlines, here and in the parent (`extend`
  messages), move by that much. They finish in this worker, not re-run. The parent
  hears of it while the loop is still held (the watchdog sends), in time for the
  deadlines it keeps: it would kill the worker half a second past one.

Code that no signal interrupts (a C call holding the GIL) is still stopped by the
parent's kill after its grace period. The handler is installed only by worker processes
(worker.main), never by the CLI or the language server.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import math
import signal
import threading
import time
from collections.abc import Callable, Iterator

SIGNAL = getattr(signal, "SIGUSR2", None)
BEAT = 0.1  # the heartbeat's period while jobs run
STALE = 0.25  # the loop has not turned for this long: something holds it
POLL = 0.05  # while a late job may hold the loop: signal this often
TELL = 0.2  # while the loop is held: tell the parent of each such share of it

_running_job: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "checkspec_running_job", default=None
)


class LoopHeld(BaseException):
    """Raised in a scenario's code that holds the worker's event loop past its deadline.

    A BaseException, as CancelledError: user code's `except Exception` lets it through."""


class LoopWatch:
    """The deadlines of the jobs running on one loop, and the watchdog that enforces them
    when the loop is held. `on_extend` is called on the loop with the seconds each job
    was held up by another that held the loop."""

    def __init__(self, on_extend: Callable[[dict[int, float]], None]) -> None:
        self._on_extend = on_extend
        self._deadlines: dict[int, asyncio.Timeout] = {}
        self._changed = threading.Condition()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_turn = time.monotonic()
        self._beating = False
        # What the signal handler found holding the loop, during the hold that began
        # after the turn `_seen`: a job (None: no job's code), and when it is due.
        self._seen: float | None = None
        self._holder: int | None = None
        self._holder_due = math.inf
        self._told: dict[int, float] = {}  # of this hold, what the parent was told so far
        self._main = threading.main_thread().ident
        # Writing a frame to the parent (Worker.send_now): a LoopHeld raised in the middle
        # would leave half a frame on the pipe, so the handler waits for the next signal.
        self.writing = False

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
        with self._changed:
            now = time.monotonic()
            held = now - self._last_turn
            self._last_turn = now
            holder, self._holder = self._holder, None
            told, self._told = self._told, {}
        if holder is not None:
            # A job held the loop (the signal found it there): the others could not run
            # meanwhile, so they get that time back. Their timers are due behind this
            # beat's (it was set before the loop was held), so none has fired yet. The
            # parent was told part of it already, while the loop was held.
            extended: dict[int, float] = {}
            for key, deadline in list(self._deadlines.items()):
                when = deadline.when()
                if key == holder or when is None:
                    continue
                with contextlib.suppress(RuntimeError):  # expired already: too late
                    deadline.reschedule(when + held)
                    if held > told.get(key, 0.0):
                        extended[key] = held - told.get(key, 0.0)
            if extended:
                self._on_extend(extended)
        if self._deadlines and self._loop is not None:
            self._loop.call_later(BEAT, self._beat)
        else:
            self._beating = False

    # In the main thread, between two bytecodes of whatever holds the loop ---------------

    def _on_signal(self, signum: int, frame: object) -> None:
        now = time.monotonic()
        if self._loop is None or now - self._last_turn < STALE:
            return  # the loop turns: the timers stop whoever is late
        if self.writing:
            return  # not in the middle of a frame to the parent: the next signal will do
        key = _running_job.get()  # None: the loop itself, or code outside any job
        deadline = self._deadlines.get(key) if key is not None else None
        when = deadline.when() if deadline is not None else None
        if when is None and self._seen == self._last_turn and self._holder is not None:
            # The job found holding the loop this time was stopped (or let go) and the
            # loop has not turned yet: the hold is still its, and the others get it back.
            return
        self._seen = self._last_turn  # who holds the loop this time is known
        self._holder = key if when is not None else None
        self._holder_due = when if when is not None else math.inf
        if when is not None and now >= when:
            raise LoopHeld(key)

    # The watchdog thread ----------------------------------------------------------------

    def _watch(self) -> None:
        assert SIGNAL is not None and self._main is not None
        while True:
            with self._changed:
                while not self._deadlines:
                    self._changed.wait()
                whens = {k: d.when() for k, d in self._deadlines.items()}
                first = min((w for w in whens.values() if w is not None), default=None)
                now = time.monotonic()
                if first is None or now < first:
                    self._changed.wait(None if first is None else first - now)
                    continue
                turn = self._last_turn
                held = now - turn
                known = held >= STALE and self._seen == turn and self._holder is not None
                # Jobs past their deadline only because another holds the loop: the
                # parent, which would kill the worker for them, hears of the time so far.
                told: dict[int, float] = {}
                for key, when in whens.items():
                    late = when is not None and when <= now
                    more = held - self._told.get(key, 0.0)
                    if known and late and key != self._holder and more >= TELL:
                        told[key] = more
                        self._told[key] = held
            if told:
                self._on_extend(told)
            # A job is late and its timer has not stopped it: the loop may be held. Once
            # the handler has seen what holds it, no signal until that is late too.
            if held >= STALE and (self._seen != turn or now >= self._holder_due):
                signal.pthread_kill(self._main, SIGNAL)
            time.sleep(POLL)
