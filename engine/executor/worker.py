"""A worker process: runs the scenarios its parent sends and streams back their results,
and the calls it sends (pool.py `WorkerPool.call`: the editor's generation).

Started as `python -m checkspec.engine.executor.worker` by the pool (pool.py). The
protocol uses private copies of stdin/stdout; the real descriptor 1 is pointed at
stderr, so nothing user code prints, even from C, can corrupt it. What Python code
prints is captured per scenario (capture.py).

The parent owns deadlines and cancellation: it kills this process (its whole session)
when a scenario is past its deadline or the run is cancelled. When the parent goes
away, this process goes too, whatever user code is doing: on Linux the kernel kills it
(a parent-death signal, set first thing); everywhere, stdin ends and a thread watching
it exits the process (that thread needs the GIL, which a C loop in user code can hold).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import pickle
import signal
import sys
import threading
from typing import Any, NoReturn

from . import capture, wire
from .loopwatch import LoopHeld, LoopWatch


def _private_streams() -> tuple[int, int]:
    protocol_in = os.dup(0)
    protocol_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return protocol_in, protocol_out


class _PipeGate:
    """Provider limits asked of the parent, which holds the run's one RateLimiter."""

    def __init__(self, worker: Worker) -> None:
        self._worker = worker
        self._numbers = itertools.count()
        self._waiting: dict[int, asyncio.Future[None]] = {}

    async def acquire(self, model: str, tokens: int, cost: float = 0.0) -> object:
        number = next(self._numbers)
        granted = asyncio.get_running_loop().create_future()
        self._waiting[number] = granted
        self._worker.send_now([("acquire", number, model, tokens, cost)])
        try:
            await granted
        except BaseException:  # cancelled while waiting (a deadline): give the turn back
            self._waiting.pop(number, None)
            self._worker.send_now([("abandon", number)])
            raise
        return number

    async def release(self, ticket: object, spent: float = 0.0) -> None:
        self._worker.send_now([("release", ticket, spent)])

    def granted(self, number: int) -> None:
        waiting = self._waiting.pop(number, None)
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    def refused(self, number: int, why: str) -> None:
        """The run's budget is reached: the call is not sent."""
        from ..llm.limits import BudgetReached  # the engine loads once the worker is up

        waiting = self._waiting.pop(number, None)
        if waiting is not None and not waiting.done():
            waiting.set_exception(BudgetReached(why))


class Worker:
    def __init__(self, protocol_out: int) -> None:
        self._out = protocol_out
        self._lock = threading.Lock()
        self._main_thread = threading.main_thread().ident  # where the loop and its handler run
        self._pending: list[wire.Message] = []
        self._flush_scheduled = False
        self._slots = asyncio.Semaphore(1)
        self._options: Any = None
        self._running = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._abandoned_at_start = 0
        self._tainted = False  # a scenario was stopped mid-way: its threads may live on
        self._gate = _PipeGate(self)
        self._run_gate: _PipeGate | None = None  # the gate of the run's jobs (limits)
        self._starting: list[int] = []
        self._announced: asyncio.Future[None] | None = None
        # Deadlines of the jobs running now; it stops one holding the loop (loopwatch.py).
        self.watch = LoopWatch(self._extend)

    # Sending ----------------------------------------------------------------------------

    def send_now(self, messages: list[wire.Message]) -> None:
        data = self._encode(messages)
        with self._lock:
            main = threading.get_ident() == self._main_thread
            if main:
                self.watch.writing = True  # no LoopHeld halfway through a frame
            try:
                wire.write_all(self._out, data)
            finally:
                if main:
                    self.watch.writing = False

    def send_soon(self, message: wire.Message) -> None:
        """Queue a message; everything queued in this loop turn goes in one frame."""
        self._pending.append(message)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        messages, self._pending = self._pending, []
        if messages:
            self.send_now(messages)

    async def _announce(self, key: int) -> None:
        """Tell the parent a job starts, before any of its code runs (deadlines and crash
        blame depend on it). Jobs starting in the same loop turn share one write."""
        self._starting.append(key)
        if self._announced is None:
            self._announced = asyncio.get_running_loop().create_future()
            asyncio.get_running_loop().call_soon(self._send_started)
        await self._announced

    def _send_started(self) -> None:
        started, self._starting = self._starting, []
        done, self._pending = self._pending, []
        announced, self._announced = self._announced, None
        self.send_now(done + [("started", key) for key in started])
        if announced is not None:
            announced.set_result(None)

    def _extend(self, seconds: dict[int, float]) -> None:
        """Jobs held up by one that holds the loop: the parent moves their deadlines too.
        Called on the loop, or by the watchdog's thread while the loop is held."""
        self.send_now([("extend", key, more) for key, more in seconds.items()])

    def _encode(self, messages: list[wire.Message]) -> bytes:
        try:
            return wire.encode(messages)
        except Exception:  # a result holding something that cannot be pickled
            return wire.encode([_portable(m) for m in messages])

    # Running ----------------------------------------------------------------------------

    async def serve(self, protocol_in: int) -> None:
        # The engine is imported once the worker is up (not at its start), here and below.
        from ..targets import abandoned_calls

        self._abandoned_at_start = abandoned_calls()
        loop = asyncio.get_running_loop()
        inbox: asyncio.Queue[list[wire.Message]] = asyncio.Queue()

        def read() -> None:
            while True:
                try:
                    frame = wire.read_frame(protocol_in)
                except Exception:
                    frame = None
                if frame is None:  # the parent is gone or closed the pool
                    _leave()
                loop.call_soon_threadsafe(inbox.put_nowait, frame)

        threading.Thread(target=read, name="checkspec-inbox", daemon=True).start()
        self.send_now([("ready", os.getpid())])
        while True:
            for message in await inbox.get():
                if message[0] == "options":
                    self._configure(message[1], message[2])
                elif message[0] == "grant":
                    self._gate.granted(message[1])
                elif message[0] == "refuse":
                    self._gate.refused(message[1], message[2])
                elif message[0] == "call":
                    _, key, function, argument = message
                    task = asyncio.create_task(self._call(key, function, argument))
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
                elif message[0] == "jobs":
                    for job in message[1]:
                        task = asyncio.create_task(self._run(job))
                        self._tasks.add(task)
                        task.add_done_callback(self._tasks.discard)

    def _configure(self, options: Any, slots: int) -> None:
        self._options = options
        self._slots = asyncio.Semaphore(max(1, slots))
        gated = options.settings.limits or options.settings.max_cost is not None
        self._run_gate = self._gate if gated else None  # passed with each job (run_job)

    async def _run(self, job: Any) -> None:
        from .jobs import Ending, Outcome, run_job, stopped, timeout_message

        async with self._slots:
            # Running from its announcement on: a job finishing meanwhile must not retire
            # this worker under it (the parent would see it die, exit code 0).
            self._running += 1
            try:
                await self._announce(job.key)
            except BaseException:
                self._running -= 1
                raise
            timeout = self._options.scenario_timeout
            ending = Ending.FINISHED
            with capture.capturing() as captured:
                try:
                    async with asyncio.timeout(timeout) as deadline:
                        with self.watch.watching(job.key, deadline):
                            result = await run_job(job, self._options.settings, self._run_gate)
                except (TimeoutError, LoopHeld):
                    self._tainted = True
                    ending = Ending.TIMEOUT
                    result = stopped(
                        job.scenario,
                        timeout_message(timeout),
                        exception_type="ScenarioTimeout",
                    )
                except BaseException as exc:  # SystemExit, KeyboardInterrupt from user code
                    result = stopped(
                        job.scenario,
                        f"the scenario raised {type(exc).__name__}: {exc}",
                        exception_type=type(exc).__name__,
                    )
            self._running -= 1
            self.send_soon(("done", Outcome(job.key, result, captured.text(), ending)))
        self._retire_if_tainted()

    async def _call(self, key: int, function: Any, argument: Any) -> None:
        """A call (pool.py `WorkerPool.call`): `function(argument, emit)`, each emitted
        value sent as it is made, then its return value, or what it raised. The parent
        keeps no deadline on it: it stops a call by killing this process."""

        def emit(value: Any) -> None:  # from the loop or a thread of the call's own
            self.send_now([("event", key, value)])

        try:
            value = await function(argument, emit)
        except BaseException as exc:  # SystemExit too: said to the parent, not a dead worker
            self.send_now([("raised", key, _raised(exc))])
            return
        try:
            self.send_now([("returned", key, value)])
        except Exception as exc:  # a value that cannot be pickled
            self.send_now([("raised", key, f"its answer cannot be sent back: {exc}")])

    def _retire_if_tainted(self) -> None:
        from ..targets import abandoned_calls

        tainted = self._tainted or abandoned_calls() > self._abandoned_at_start
        if tainted and self._running == 0:
            # Threads of calls that never answered cannot be stopped: start afresh. Jobs
            # sent but not started go back to the parent's queue when it sees us exit.
            self._flush()
            self.send_now([("retire", "a call did not answer in time")])
            _leave()


def _leave() -> NoReturn:
    """Exit now, not waiting for threads that may never end. os._exit skips atexit, so a
    coverage.py measuring this process (`make test`) is asked to save its data first."""
    coverage = sys.modules.get("coverage")
    current = coverage.Coverage.current() if coverage is not None else None
    if current is not None:
        with contextlib.suppress(Exception):
            current.stop()
            current.save()
    os._exit(0)


def _raised(exc: BaseException) -> str:
    """`ValueError: why`, and where it was raised (the last frames of its traceback)."""
    import traceback

    where = "".join(traceback.format_tb(exc.__traceback__, limit=-3)).rstrip()
    return f"{type(exc).__name__}: {exc}" + (f"\n{where}" if where else "")


def _portable(message: wire.Message) -> wire.Message:
    """The message with its result reduced to JSON-able values (repr for the rest)."""
    if message[0] != "done":
        return message
    outcome = message[1]
    try:
        pickle.dumps(outcome)
        return message
    except Exception:
        from ..core.result import ScenarioResult

        data = outcome.result.model_dump(mode="json", fallback=repr)
        outcome.result = ScenarioResult.model_validate(data)
        return ("done", outcome)


_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> None:
    """Be killed by the kernel when the process that started this one ends (Linux).

    The signal comes even while user code holds the GIL (a regex backtracking, a C
    loop), which the stdin-watching thread cannot do. A parent that ended before the
    signal was set is seen by the parent's pid having changed: the pool's (its pid in the
    environment), or `parent`, the template this worker was forked from (template.py)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the pipe watch
            pass
    expected = str(parent) if parent is not None else os.environ.get(wire.PARENT_VARIABLE, "")
    if expected.isdigit() and os.getppid() != int(expected):
        os._exit(0)  # the parent is gone already


def main(parent: int | None = None) -> None:
    """Serve the pool on stdin and stdout; `parent`: the template that forked this worker
    (template.py), else the pool started it."""
    die_with_parent(parent)
    protocol_in, protocol_out = _private_streams()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    capture.install()
    sys.stdin = open(os.devnull)  # noqa: SIM115 - user code reading input gets EOF
    worker = Worker(protocol_out)

    async def serve() -> None:
        worker.watch.install(asyncio.get_running_loop())
        await worker.serve(protocol_in)

    asyncio.run(serve())


if __name__ == "__main__":
    main()
