"""A pool of worker processes: where user code runs for the CLI, the plugin and the server.

Each worker (worker.py) runs several scenarios at once (`slots`). The parent keeps
every deadline and decides every ending:

- a scenario past `scenario_timeout` (plus a short grace for the worker's own soft
  timeout) has its worker killed, with the worker's whole session; it ends as ERROR.
  The other scenarios that worker had started go back to the queue and run again on
  another worker, with a deadline of their own from their new start; each is marked
  "re-run: its worker was stopped for <scenario>". When several were past their
  deadline at once (user code holding the worker's loop in a C call keeps finished
  results from being sent; Python code is stopped by the worker itself, loopwatch.py),
  which one held it is unknown: each runs again alone, so only the one that is late on
  its own ends as ERROR. A worker whose loop is held by one scenario moves the
  deadlines of the others it held up (`extend`);
- a worker that dies (os._exit, a signal, out of memory) ends the scenario it was
  running as ERROR with the exit code and the tail of its stderr. When several were
  running, each is re-run once, alone in a worker, and marked "re-run after worker
  crash (...)": one that kills its worker again ends as ERROR. With the `rerun`
  setting off (targets with side effects), they end as ERROR at once;
- scenarios sent to a worker but not started when it ends go back to the queue, not
  marked (none of their code ran);
- cancelling kills the workers with running scenarios and ends every unfinished job
  as cancelled.

Where it can (Linux) and it pays (a pool of three or more workers, or kept warm), the
pool starts a template process first, which imports what every worker imports, and forks
each worker from it (template.py, forks.py): a worker's start is a fork, not an
interpreter's start and the engine's imports (0.3 CPU-s each).
The template imports nothing of the workspace, so workers still import the user's modules
themselves; a worker's parent is the template (the pool's pid is in its environment,
CHECKSPEC_WORKER_PARENT). If the template dies, its workers die with it and count as
killed, and the pool starts the next ones the plain way.

Workers that ran jobs are not reused by the next stream: each run imports the
workspace's modules afresh. With `keep_warm`, fresh workers are started as soon as a
run ends, so the next run does not wait for Python to start.

Several streams can run at once (the language server runs different files side by side):
each leases workers of its own from the pool, at most `size` workers live in all, and a
stream that has none yet waits for one. When a stream waits with none, a stream with
several stops feeding one of them and gives it back once it is idle, so a short run is
not held up behind a long one. Each stream is cancelled on its own (`StreamHandle`).

A call (`call`) is the other kind of job: one function of checkspec's own (the editor's
generation, engine/runs/generation.py) run in a worker leased from the same pool, its
argument a plain value (the settings among it: never environment variables), its events
(progress) streamed back as they come, its return value the answer. A scenario's rules do
not fit it, so it has its own: no scenario deadline (a generation takes as long as its
model calls; cancelling is how it is stopped), never re-run after a crash (each model call
costs money, and nothing of it is written unless it finished), and a dead worker is the
call's failure (`CallFailed`: how it died and the tail of its stderr), never the pool's. It
holds one of the pool's `size` workers while it runs, and its worker is not reused.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import math
import os
import signal
import sys
import time
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..llm.limits import BudgetReached, RateLimiter, run_limiter
from . import forks, leftovers, wire
from .base import Executor
from .jobs import Ending, Job, Outcome, RunOptions, not_run, stopped, timeout_message

WORKER_MODULE = "checkspec.engine.executor.worker"
# Closing: how long idle workers get to leave on their own (they save coverage data in
# `make test`) before their process groups are killed.
CLOSE_GRACE = 1.0
# The worker's own soft timeout fires at the deadline; the kill comes this much later.
GRACE_SECONDS = 0.5
_TAIL_BYTES = 4096
_READ_LIMIT = 1 << 26  # a worker's largest message
EXIT_POLL = 0.02  # how often a worker whose output ended is checked for its exit
_START_FAILURES = 3  # workers in a row that die before they are ready: give up


class WorkerStartError(RuntimeError):
    """Worker processes cannot start (a wrong interpreter, checkspec not installed in it)."""


class CallFailed(RuntimeError):
    """A call's function raised, or its worker died: the message says which and why."""


class CallCancelled(Exception):
    """A call was cancelled (its handle, or the pool closing): its worker was stopped."""


def default_size(jobs: int) -> int:
    return jobs if jobs > 0 else os.cpu_count() or 1


class StreamHandle:
    """Cancels one stream of a pool (given to `WorkerPool.stream`), whichever runs."""

    def __init__(self) -> None:
        self.cancelled = False
        self._stream: _Stream | None = None

    def cancel(self) -> None:
        self.cancelled = True
        if self._stream is not None:
            self._stream.cancel()


@dataclass(eq=False)
class _Stream:
    """One stream's own state: its workers, their events, its provider limits."""

    events: asyncio.Queue[tuple[str, _Worker | None, object]] = field(default_factory=asyncio.Queue)
    workers: list[_Worker] = field(default_factory=list)
    cancelled: bool = False
    limiter: RateLimiter | None = None
    queued: int = 0  # jobs waiting for a worker (another stream may give one back)
    # Its started scenarios by start time, oldest first (entries of scenarios that ended
    # are dropped when they reach the top): the next deadline without a scan of every job
    # in flight at each event, which cost O(jobs in flight) per message of a big run.
    starts: list[tuple[float, int, _Worker, _Running]] = field(default_factory=list)
    start_number: int = 0

    def cancel(self) -> None:
        self.cancelled = True
        self.wake()

    def started(self, worker: _Worker, running: _Running) -> None:
        self.start_number += 1
        heapq.heappush(self.starts, (running.started or 0.0, self.start_number, worker, running))

    def oldest_start(self) -> float | None:
        """When its longest-running scenario still in flight started (None: none runs)."""
        starts = self.starts
        while starts:
            start, _, worker, running = starts[0]
            # An entry whose start has moved since (an `extend`) has a newer one.
            if worker.inflight.get(running.queued.job.key) is running and start == running.started:
                return start
            heapq.heappop(starts)
        return None

    def wake(self) -> None:
        self.events.put_nowait(("wake", None, None))


@dataclass
class _Queued:
    job: Job
    solo: bool = False  # runs alone in its worker (retry after an ambiguous crash)
    rerun: str | None = None  # why this is a second run (Outcome.rerun)
    crashed: bool = False  # its first run was lost with a worker that died
    late_with: str | None = None  # the others past their deadline in its first worker


@dataclass
class _Running:
    queued: _Queued
    started: float | None = None


@dataclass(eq=False)
class _Worker:
    proc: asyncio.subprocess.Process | forks.ForkedProcess
    ready: bool = False
    inflight: dict[int, _Running] = field(default_factory=dict)
    tail: bytearray = field(default_factory=bytearray)
    options: RunOptions | None = None
    used: bool = False
    retiring: bool = False
    solo: bool = False
    kill_reason: str | None = None
    late: set[int] = field(default_factory=set)  # keys past their deadline
    stream: _Stream | None = None  # the stream it is leased to (None: a spare)
    draining: bool = False  # given no more jobs: it goes back once idle
    keys: dict[int, int] = field(default_factory=dict)  # the pool's job key -> the stream's
    # Provider turns (judges/limits.py) this worker asked for and was given.
    asking: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    holding: dict[int, object] = field(default_factory=dict)

    def send(self, messages: list[wire.Message]) -> None:
        self.send_bytes(wire.encode(messages))

    def send_bytes(self, data: bytes) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.is_closing():
            self.proc.stdin.write(data)

    def kill(self, reason: str) -> None:
        self.kill_reason = self.kill_reason or reason
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def stderr_tail(self) -> str:
        text = bytes(self.tail).decode("utf-8", errors="replace").strip()
        return text[-2000:]


class WorkerPool(Executor):
    def __init__(
        self,
        *,
        size: int,
        concurrency: int = 8,
        python: str | None = None,
        keep_warm: bool = False,
        env: dict[str, str] | None = None,
        template: bool | None = None,
    ) -> None:
        self.size = max(1, size)
        self.slots = max(1, math.ceil(concurrency / self.size))
        self.python = python or sys.executable
        self.keep_warm = keep_warm
        self._env = {**os.environ, **(env or {}), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        self._workers: list[_Worker] = []
        self._streams: list[_Stream] = []
        self._keys = 0  # job keys unique in the pool (streams' own keys may repeat)
        self._ever_ready = False
        self._start_failures = 0
        # Workers being started (not yet in `_workers`): counted against `size`, so two
        # streams or calls leasing at once do not both start the last place's worker.
        self._starting = 0
        self._spares: asyncio.Task[None] | None = None
        self._closed = False
        self._readers: set[asyncio.Task[None]] = set()  # keeps the reading tasks alive
        # The session of every worker started (its pid): what is left in them is killed
        # when the pool closes, the worker gone or not (leftovers.py).
        self._sessions: set[int] = set()
        # Workers are forked from a template process that imported the engine once
        # (template.py), where that works and pays: the template's own start is a
        # worker's, so a pool that starts one or two workers gains nothing (measured
        # under coverage, it lost 0.12 CPU-s for one), one of three or more, or one kept
        # warm (a fresh worker after every run), gains a start for each further worker.
        # None: so decided; True or False: always or never.
        wanted = (self.size >= 3 or keep_warm) if template is None else template
        self._use_template = wanted and forks.available()
        self._template: forks.Template | None = None

    # Workers -------------------------------------------------------------------------

    def _room(self) -> bool:
        """Whether another worker may start (fewer than `size` live or starting)."""
        return len(self._live()) + self._starting < self.size

    async def _spawn(self) -> _Worker:
        self._starting += 1
        try:
            proc = await self._forked() or await asyncio.create_subprocess_exec(
                self.python,
                "-m",
                WORKER_MODULE,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # killed as a group; Ctrl-C in a terminal is ours
                env=self._worker_env(),
                limit=_READ_LIMIT,
            )
        except OSError as exc:  # no such interpreter, not executable
            raise WorkerStartError(
                f"cannot start checkspec worker processes with {self.python}: {exc.strerror or exc}"
            ) from None
        finally:
            self._starting -= 1
        self._sessions.add(proc.pid)
        worker = _Worker(proc)
        self._workers.append(worker)
        for reading in (self._read(worker), self._read_stderr(worker)):
            task = asyncio.ensure_future(reading)
            self._readers.add(task)
            task.add_done_callback(self._readers.discard)
        return worker

    def _worker_env(self) -> dict[str, str]:
        return {**self._env, wire.PARENT_VARIABLE: str(os.getpid())}

    async def _forked(self) -> forks.ForkedProcess | None:
        """A worker forked from the pool's template (started at the first), or None: no
        template here, or it failed (then workers start the plain way from now on)."""
        if not self._use_template:
            return None
        try:
            if self._template is None:
                self._template = await forks.Template.start(self.python, self._worker_env())
            return await self._template.fork(_READ_LIMIT)
        except (OSError, forks.TemplateGone):
            self._use_template = False
            return None

    async def _read(self, worker: _Worker) -> None:
        stdout = worker.proc.stdout
        assert stdout is not None
        try:
            while True:
                header = await stdout.readexactly(wire.HEADER_SIZE)
                payload = await stdout.readexactly(wire.decode_length(header))
                self._deliver(worker, "messages", wire.decode(payload))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        except Exception as exc:  # a frame we cannot read: the worker is of no use
            worker.tail += f"\n[checkspec: unreadable message from the worker: {exc}]".encode()
            worker.kill("protocol")
        self._deliver(worker, "exit", await _exited(worker.proc))

    def _deliver(self, worker: _Worker, kind: str, payload: object) -> None:
        """A worker's messages go to its stream; a spare's are handled here."""
        if worker.stream is not None:
            worker.stream.events.put_nowait((kind, worker, payload))
            return
        if kind == "messages":
            for message in payload:  # type: ignore[attr-defined]
                if message[0] == "ready":
                    worker.ready = True
                    self._ever_ready = True
                    self._start_failures = 0
        elif kind == "exit" and worker in self._workers:
            self._workers.remove(worker)
            self._wake_all()

    def _wake_all(self) -> None:
        for stream in self._streams:
            stream.wake()

    async def _read_stderr(self, worker: _Worker) -> None:
        stderr = worker.proc.stderr
        assert stderr is not None
        while chunk := await stderr.read(65536):
            worker.tail += chunk
            del worker.tail[:-_TAIL_BYTES]

    def _live(self, stream: _Stream | None = None) -> list[_Worker]:
        """Live workers (of one stream, or all of them)."""
        workers = self._workers if stream is None else stream.workers
        return [w for w in workers if w.proc.returncode is None and not w.retiring]

    def _spares_now(self) -> list[_Worker]:
        return [w for w in self._live() if w.stream is None and not w.used]

    async def warm(self, count: int | None = None) -> None:
        """Start spare workers now (up to `count`, default the pool size, and never more
        than `size` live workers in all) so a run need not wait."""
        wanted = self.size if count is None else min(self.size, count)
        while len(self._spares_now()) < wanted and self._room():
            await self._spawn()

    async def _lease(self, stream: _Stream, count: int) -> None:
        """Give the stream up to `count` more workers: spares first, then new ones, while
        fewer than `size` live in all."""
        for _ in range(max(0, count)):
            spares = self._spares_now()
            if spares:
                worker = next((w for w in spares if w.ready), spares[0])
            elif self._room():
                worker = await self._spawn()
            else:
                return
            worker.stream = stream
            stream.workers.append(worker)

    def _retire(self, worker: _Worker) -> None:
        worker.retiring = True
        if worker.proc.stdin is not None and not worker.proc.stdin.is_closing():
            worker.proc.stdin.close()  # it exits at end of input
        self._wake_all()  # its place is free

    def _retire_used(self, stream: _Stream) -> None:
        for worker in stream.workers:
            if worker.used and worker.proc.returncode is None and not worker.inflight:
                self._retire(worker)

    # Streaming -----------------------------------------------------------------------

    async def stream(
        self, jobs: Sequence[Job], options: RunOptions, handle: StreamHandle | None = None
    ) -> AsyncGenerator[Outcome, None]:
        """The outcome of every job. Streams may run at once, each on workers of its own;
        `handle` cancels this one alone (`cancel()` cancels them all)."""
        stream = _Stream(cancelled=handle is not None and handle.cancelled)
        if handle is not None:
            handle._stream = stream  # noqa: SLF001 - the handle is this module's
        self._streams.append(stream)
        # Job keys unique in the pool: the workers of a stream only see these.
        own: dict[int, int] = {}
        renamed: list[Job] = []
        for job in jobs:
            self._keys += 1
            own[self._keys] = job.key
            renamed.append(replace(job, key=self._keys))
        queue: deque[_Queued] = deque(_Queued(job) for job in renamed)
        remaining = set(own)
        stream.limiter = run_limiter(options.settings.limits, options.settings.max_cost)
        try:
            if self._spares is not None and not self._spares.done():
                await asyncio.shield(self._spares)
            await self._lease(stream, len(jobs))
            stream.queued = len(queue)
            if not stream.workers:
                self._wake_all()  # a stream with several workers gives one back
            while remaining:
                done: list[Outcome] = []
                if stream.cancelled:
                    done += self._cancel_now(stream, queue)
                else:
                    done += self._dispatch(stream, queue, options)
                if not done:
                    event = await self._next_event(stream, options.scenario_timeout)
                    if event is not None:
                        done += self._handle(event, queue)
                    done += self._check_deadlines(stream, options.scenario_timeout)
                    stream.queued = len(queue)
                    if queue and not stream.cancelled:
                        await self._replace_lost(stream, len(queue))
                for outcome in done:
                    if outcome.key in remaining:
                        remaining.discard(outcome.key)
                        outcome.key = own[outcome.key]
                        yield outcome
        finally:
            self._streams.remove(stream)
            for worker in stream.workers:
                if worker.inflight:  # the caller stopped listening: stop them too
                    worker.kill("abandoned")
            self._retire_used(stream)
            for worker in stream.workers:  # leased but never given a job: spares again
                worker.stream, worker.draining = None, False
            self._released(stream)

    # Calls ---------------------------------------------------------------------------

    async def call(
        self,
        function: Callable[[Any, Callable[[Any], None]], Awaitable[Any]],
        argument: Any,
        on_event: Callable[[Any], None] | None = None,
        handle: StreamHandle | None = None,
    ) -> Any:
        """`await function(argument, emit)` in a worker of the pool: what it returns.
        `function` is a module-level function (sent by reference: the worker imports its
        module); each `emit(value)` there reaches `on_event` here as it is made. Raises
        CallFailed (it raised, or its worker died), CallCancelled (`handle` cancelled it),
        WorkerStartError."""
        stream = _Stream(cancelled=handle is not None and handle.cancelled)
        if handle is not None:
            handle._stream = stream  # noqa: SLF001 - the handle is this module's
        self._streams.append(stream)
        self._keys += 1
        key = self._keys
        finished = False
        try:
            if self._spares is not None and not self._spares.done():
                await asyncio.shield(self._spares)
            worker = await self._leased_one(stream)
            worker.used = True
            worker.send([("call", key, function, argument)])
            while True:
                if stream.cancelled and worker.proc.returncode is None:
                    worker.kill("cancel")
                kind, who, payload = await stream.events.get()
                if who is not worker:
                    continue
                if kind == "exit":
                    if worker in self._workers:
                        self._workers.remove(worker)
                    raise self._call_lost(worker, payload)  # type: ignore[arg-type]
                for message in payload:  # type: ignore[attr-defined]
                    if message[0] == "ready":
                        worker.ready = self._ever_ready = True
                        self._start_failures = 0
                    elif message[0] == "event" and message[1] == key:
                        if on_event is not None:
                            on_event(message[2])
                    elif message[0] == "returned" and message[1] == key:
                        finished = True
                        return message[2]
                    elif message[0] == "raised" and message[1] == key:
                        finished = True
                        raise CallFailed(message[2])
                    elif message[0] == "acquire":  # limits are the call's own, in its worker
                        worker.send([("grant", message[1])])
        finally:
            self._streams.remove(stream)
            for worker in stream.workers:
                if not finished:  # cancelled, or the caller stopped waiting: it stops too
                    worker.kill(worker.kill_reason or "abandoned")
                elif worker.proc.returncode is None:
                    self._retire(worker)  # not reused: the call imported what it needed
                worker.stream = None
            self._released(stream)

    def _released(self, stream: _Stream) -> None:
        """A stream or call ended: its workers let go, what they said meanwhile (ready,
        exit) delivered, the waiting streams woken and the spares made up again."""
        stream.workers.clear()
        while not stream.events.empty():
            kind, who, payload = stream.events.get_nowait()
            if who is not None:
                self._deliver(who, kind, payload)
        self._wake_all()
        if self.keep_warm and not self._closed:
            self._spares = asyncio.ensure_future(self.warm())

    async def _leased_one(self, stream: _Stream) -> _Worker:
        """A worker for a call: a spare, or a new one while the pool has room; else, once
        another stream gives one back (its `queued` asks for one)."""
        while True:
            if stream.cancelled:
                raise CallCancelled("cancelled before it started")
            await self._lease(stream, 1)
            if stream.workers:
                stream.queued = 0
                return stream.workers[0]
            stream.queued = 1
            for other in self._streams:  # a stream with several workers gives one back
                if other is not stream:
                    other.wake()
            await stream.events.get()  # a place freed (every exit and retirement wakes)

    def _call_lost(self, worker: _Worker, code: int) -> Exception:
        if worker.kill_reason in ("cancel", "close"):
            return CallCancelled(f"stopped: {worker.kill_reason}")
        if not worker.ready:
            return WorkerStartError(
                f"cannot start checkspec worker processes with {self.python}: "
                f"{_exit_text(code)}; {worker.stderr_tail() or 'no output'}"
            )
        tail = worker.stderr_tail()
        return CallFailed(
            f"the worker process running it died ({_exit_text(code)})"
            + (f"; its last output:\n{tail}" if tail else "")
        )

    def cancel(self) -> None:
        """Cancel every stream running."""
        for stream in self._streams:
            stream.cancel()

    async def _next_event(
        self, stream: _Stream, timeout: float
    ) -> tuple[str, _Worker | None, object] | None:
        oldest = stream.oldest_start()
        wait = None
        if oldest is not None:
            wait = max(0.0, oldest + timeout + GRACE_SECONDS - time.monotonic()) + 0.01
        if not stream.events.empty():
            return stream.events.get_nowait()
        try:
            return await asyncio.wait_for(stream.events.get(), wait)
        except TimeoutError:
            return None

    def _starving(self, stream: _Stream) -> bool:
        """Another stream waits for jobs with no worker at all."""
        return any(
            other is not stream and other.queued and not self._live(other)
            for other in self._streams
        )

    def _dispatch(
        self, stream: _Stream, queue: deque[_Queued], options: RunOptions
    ) -> list[Outcome]:
        """Hand queued jobs to ready workers; jobs that cannot be sent end at once.

        Free slots are filled first, across all workers. Only then, while the queue is
        long, each worker gets a few jobs ahead, so it does not idle between round trips;
        near the end of the queue none, so no worker waits while another has a backlog.
        """
        live = self._live(stream)
        if len(live) > 1 and self._starving(stream) and not any(w.draining for w in live):
            # Give one back to a stream that has none: no more jobs for it, and it goes
            # once idle (the least busy one).
            min(live, key=lambda w: len(w.inflight)).draining = True
        for worker in live:
            if worker.draining and not worker.inflight:
                self._retire(worker)
        workers = [
            w
            for w in self._live(stream)
            if w.ready and not w.draining and not (w.solo and w.inflight)
        ]
        if not queue or not workers:
            return []
        batches: dict[_Worker, list[_Queued]] = {w: [] for w in workers}
        for worker in workers:
            self._take(queue, worker, batches[worker], self.slots - len(worker.inflight))
        extra = min(self.slots * 4, len(queue) // (2 * len(workers)))
        for worker in workers:
            room = self.slots + extra - len(worker.inflight) - len(batches[worker])
            # Refill in batches, not one job per result: fewer, larger writes.
            if not worker.solo and (batches[worker] or room * 2 >= extra):
                self._take(queue, worker, batches[worker], room)
        failed: list[Outcome] = []
        for worker, batch in batches.items():
            if batch:
                failed += self._send(worker, batch, options)
        return failed

    @staticmethod
    def _take(queue: deque[_Queued], worker: _Worker, batch: list[_Queued], room: int) -> None:
        while queue and room > 0 and not worker.solo:
            if queue[0].solo:  # alone in its worker: only into an empty one
                if worker.inflight or batch:
                    return
                worker.solo = True
            batch.append(queue.popleft())
            room -= 1

    def _send(self, worker: _Worker, batch: list[_Queued], options: RunOptions) -> list[Outcome]:
        messages: list[wire.Message] = []
        if worker.options is not options:
            messages.append(("options", options, self.slots))
            worker.options = options
        data, unsendable = _encode_jobs(messages, batch)
        lost = {o.key for o in unsendable}
        for queued in batch:
            if queued.job.key not in lost:
                worker.inflight[queued.job.key] = _Running(queued)
        if data:
            worker.used = True
            worker.send_bytes(data)
        return unsendable

    def _handle(
        self, event: tuple[str, _Worker | None, object], queue: deque[_Queued]
    ) -> list[Outcome]:
        kind, worker, payload = event
        if worker is None:
            return []
        if kind == "messages":
            return self._on_messages(worker, payload)  # type: ignore[arg-type]
        if kind == "exit":
            return self._on_exit(worker, payload, queue)  # type: ignore[arg-type]
        return []

    def _on_messages(self, worker: _Worker, messages: list[wire.Message]) -> list[Outcome]:
        done: list[Outcome] = []
        for message in messages:
            if message[0] == "done":
                outcome: Outcome = message[1]
                running = worker.inflight.pop(outcome.key, None)
                if running is not None:
                    outcome.rerun = running.queued.rerun
                    done.append(outcome)
            elif message[0] == "started":
                running = worker.inflight.get(message[1])
                if running is not None:
                    running.started = time.monotonic()
                    if worker.stream is not None:
                        worker.stream.started(worker, running)
            elif message[0] == "extend":  # it was held up by another (loopwatch.py)
                running = worker.inflight.get(message[1])
                if running is not None and running.started is not None:
                    running.started += message[2]
                    if worker.stream is not None:
                        worker.stream.started(worker, running)
            elif message[0] == "ready":
                worker.ready = True
                self._ever_ready = True
                self._start_failures = 0
            elif message[0] == "retire":
                worker.retiring = True
                self._wake_all()  # its place is free
            elif message[0] == "acquire":
                _, number, model, tokens, cost = message
                task = asyncio.ensure_future(self._grant(worker, number, model, tokens, cost))
                worker.asking[number] = task
            elif message[0] == "release":
                self._give_back(worker, message[1], message[2])
            elif message[0] == "abandon":
                asking = worker.asking.pop(message[1], None)
                if asking is not None:
                    asking.cancel()
                self._give_back(worker, message[1])
        if not worker.inflight:
            worker.solo = False
        return done

    async def _grant(
        self, worker: _Worker, number: int, model: str, tokens: int, cost: float
    ) -> None:
        limiter = worker.stream.limiter if worker.stream is not None else None
        if limiter is None:  # no limits (or the run is over): go ahead
            worker.send([("grant", number)])
            return
        try:
            ticket = await limiter.acquire(model, tokens, cost)
        except BudgetReached as exc:
            worker.asking.pop(number, None)
            worker.send([("refuse", number, str(exc))])
            return
        worker.asking.pop(number, None)
        if worker.proc.returncode is not None:
            await limiter.release(ticket)
            return
        worker.holding[number] = ticket
        worker.send([("grant", number)])

    def _give_back(self, worker: _Worker, number: int, spent: float = 0.0) -> None:
        ticket = worker.holding.pop(number, None)
        limiter = worker.stream.limiter if worker.stream is not None else None
        if ticket is not None and limiter is not None:
            self._background(limiter.release(ticket, spent))

    def _background(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._readers.add(task)
        task.add_done_callback(self._readers.discard)

    def _on_exit(self, worker: _Worker, code: int, queue: deque[_Queued]) -> list[Outcome]:
        if worker in self._workers:
            self._workers.remove(worker)
            self._wake_all()  # its place is free
        for asking in worker.asking.values():  # its turns, asked for or held, go back
            asking.cancel()
        for number in list(worker.holding):
            self._give_back(worker, number)
        if not worker.ready and worker.kill_reason is None:
            self._start_failures += 1
            if not self._ever_ready or self._start_failures >= _START_FAILURES:
                raise WorkerStartError(
                    f"cannot start checkspec worker processes with {self.python}: "
                    f"{_exit_text(code)}; {worker.stderr_tail() or 'no output'}"
                )
        return self._lost(worker, code, queue)

    def _lost(self, worker: _Worker, code: int, queue: deque[_Queued]) -> list[Outcome]:
        """What becomes of the jobs of a worker that ended: an outcome, or the queue again."""
        done: list[Outcome] = []
        started = {k: r for k, r in worker.inflight.items() if r.started is not None}
        late = [k for k in started if k in worker.late]
        rerun = worker.options is None or worker.options.settings.rerun

        def name(key: int) -> str:
            return started[key].queued.job.scenario.name

        for key, running in worker.inflight.items():
            queued, job = running.queued, running.queued.job
            if worker.kill_reason in ("cancel", "abandoned", "close"):
                why = "not run: the run was cancelled"
                done.append(Outcome(key, not_run(job.scenario, why), ending=Ending.CANCELLED))
            elif running.started is None:
                queue.appendleft(queued)  # none of its code ran: it just goes back
            elif worker.kill_reason == "deadline":
                if key in worker.late and (len(late) == 1 or queued.solo):
                    message = timeout_message(self._timeout_of(worker))
                    result = stopped(job.scenario, message, exception_type="ScenarioTimeout")
                    mark = queued.rerun
                    if queued.late_with:  # late again, alone: it was the one
                        mark = (
                            f"re-run alone: its first worker was stopped while it and "
                            f"{queued.late_with} were past their deadline"
                        )
                    done.append(Outcome(key, result, ending=Ending.TIMEOUT, rerun=mark))
                elif key in worker.late:  # several late at once: each again, alone
                    others = " and ".join(name(k) for k in late if k != key)
                    why = f"re-run: its worker was stopped for {others.replace(' and ', ' or ')}"
                    queue.appendleft(_Queued(job, solo=True, rerun=why, late_with=others))
                else:  # stopped for another's sake: again, with a deadline of its own
                    culprit = " or ".join(name(k) for k in late)
                    why = f"re-run: its worker was stopped for {culprit}"
                    queue.appendleft(_Queued(job, rerun=queued.rerun or why))
            elif len(started) == 1 or queued.solo or queued.crashed or not rerun:
                done.append(self._died(worker, code, queued, len(started), rerun))
            else:  # several were running: each once more, alone, so the blame lands right
                why = f"re-run after worker crash ({_crash_text(code)})"
                queue.appendleft(_Queued(job, solo=True, rerun=why, crashed=True))
        worker.inflight.clear()
        return done

    def _died(
        self, worker: _Worker, code: int, queued: _Queued, running: int, rerun: bool
    ) -> Outcome:
        message = f"the worker process running this scenario died ({_exit_text(code)})"
        if queued.crashed:
            message += "; it ran alone after its first worker died too"
        elif running > 1 and not rerun:
            message += f" while running {running - 1} other scenario(s); not re-run (rerun: false)"
        tail = worker.stderr_tail()
        result = stopped(
            queued.job.scenario,
            message + (f"; its last output:\n{tail}" if tail else ""),
            exception_type="WorkerDied",
        )
        return Outcome(queued.job.key, result, ending=Ending.CRASHED, rerun=queued.rerun)

    def _timeout_of(self, worker: _Worker) -> float:
        return worker.options.scenario_timeout if worker.options else 0.0

    def _check_deadlines(self, stream: _Stream, timeout: float) -> list[Outcome]:
        now = time.monotonic()
        late: dict[_Worker, set[int]] = {}
        while (
            oldest := stream.oldest_start()
        ) is not None and now - oldest > timeout + GRACE_SECONDS:
            _, _, worker, running = heapq.heappop(stream.starts)
            late.setdefault(worker, set()).add(running.queued.job.key)
        for worker, keys in late.items():
            if worker.proc.returncode is None:
                worker.late |= keys
                worker.kill("deadline")
        return []

    async def _replace_lost(self, stream: _Stream, queued: int) -> None:
        """Another worker for the stream when one was lost or it has none, while the pool
        has room (and no other stream is left with none)."""
        live = self._live(stream)
        busy = [w for w in live if not w.draining]
        wanted = min(self.size, queued + sum(len(w.inflight) for w in busy))
        if len(busy) < wanted and (not busy or not self._starving(stream)):
            await self._lease(stream, 1)

    def _cancel_now(self, stream: _Stream, queue: deque[_Queued]) -> list[Outcome]:
        why = "not run: the run was cancelled"
        done = [
            Outcome(q.job.key, not_run(q.job.scenario, why), ending=Ending.CANCELLED) for q in queue
        ]
        queue.clear()
        for worker in stream.workers:
            unstarted = [k for k, r in worker.inflight.items() if r.started is None]
            if len(unstarted) < len(worker.inflight):
                worker.kill("cancel")
            else:  # nothing of it is running yet: no need to kill, just forget them
                for key in unstarted:
                    job = worker.inflight.pop(key).queued.job
                    done.append(Outcome(key, not_run(job.scenario, why), ending=Ending.CANCELLED))
                if unstarted:
                    worker.kill("cancel")
        return done

    async def aclose(self) -> None:
        """Stop every worker now: between streams none has anything worth waiting for."""
        self._closed = True
        if self._spares is not None:
            self._spares.cancel()
        workers = list(self._workers)
        for worker in workers:  # idle: each leaves on the end of its input
            worker.kill_reason = worker.kill_reason or "close"
            if worker.proc.stdin is not None and not worker.proc.stdin.is_closing():
                worker.proc.stdin.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(_exited(w.proc) for w in workers)), CLOSE_GRACE)
        for worker in workers:  # one that did not, and whatever user code started
            worker.kill("close")
        for worker in workers:
            await _exited(worker.proc)
        self._workers.clear()
        # What left the workers' process groups, and what workers that exited before
        # (retired, crashed) had started: no process of a run outlives it.
        await asyncio.to_thread(leftovers.sweep, set(self._sessions))
        self._sessions.clear()
        if self._template is not None:
            await self._template.aclose()
            self._template = None

    def kill_all(self) -> None:
        """Kill every worker at once (a second Ctrl-C)."""
        for worker in self._workers:
            worker.kill("cancel")
        leftovers.sweep(set(self._sessions), wait=0)


async def _exited(proc: asyncio.subprocess.Process | forks.ForkedProcess) -> int:
    """The worker's exit code, as soon as it exits. Not `proc.wait()`: that also waits
    for the worker's pipes to close, and a process user code started holds its stderr
    (the worker's descriptors 1 and 2) as long as it runs: the run waited for it."""
    while proc.returncode is None:
        await asyncio.sleep(EXIT_POLL)
    return proc.returncode


def _encode_jobs(messages: list[wire.Message], batch: list[_Queued]) -> tuple[bytes, list[Outcome]]:
    """One frame with the jobs; a job that cannot be pickled ends as ERROR instead."""
    jobs = [q.job for q in batch]
    try:
        return wire.encode([*messages, ("jobs", jobs)]), []
    except Exception:
        pass
    sendable: list[Job] = []
    failed: list[Outcome] = []
    for job in jobs:
        try:
            wire.encode([("jobs", [job])])
            sendable.append(job)
        except Exception as exc:
            why = (
                f"this scenario cannot be sent to a worker process ({type(exc).__name__}: "
                f"{exc}); run it in-process (--executor inprocess)"
            )
            failed.append(
                Outcome(job.key, stopped(job.scenario, why, exception_type="NotPicklable"))
            )
    if not sendable and not messages:
        return b"", failed
    return wire.encode([*messages, ("jobs", sendable)]), failed


def _crash_text(code: int | None) -> str:
    """`signal 9` or `exit code 3`: how a worker ended, in a re-run's mark."""
    if code is not None and code < 0:
        return f"signal {-code}"
    return _exit_text(code)


def _exit_text(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"
