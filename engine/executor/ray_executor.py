"""The Ray executor: scenarios run as Ray tasks, in batches, on a Ray cluster.

`checkspec run --executor ray [--ray-address ADDR]` (extra: `pip install
'checkspec[ray]'`). With an address (or `auto`) it joins that cluster; without one it
starts a local Ray for the run. The workspace's code travels in Ray's runtime
environment (`working_dir` = the workspace root), so relative `python:` targets and `fn`
references resolve on any node; base folders are sent relative to that root.

Each task runs a batch of scenarios one after another and streams back, per scenario,
"started" then its outcome (a Ray streaming generator), so results arrive as they come
and the driver knows which scenario a lost task was running. Deadlines: a scenario past
`scenario_timeout` is stopped by its own task (soft timeout, then a watchdog that ends
the worker process). A task that dies (a crash, the watchdog, a node lost) errors the
scenario it was running and its unstarted scenarios go out again in a new task. Ray's
own scheduling decides where tasks run; there is no scheduler of ours.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import AsyncGenerator, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..llm import limits
from ..llm.limits import BudgetReached, RateLimiter
from ..settings import Settings
from . import capture
from .base import Executor
from .jobs import Ending, Job, Outcome, RunOptions, not_run, run_job, stopped, timeout_message

EXCLUDES = [".git", ".venv", "venv", "node_modules", "__pycache__", ".checkspec", "*.pyc"]
GRACE_SECONDS = 1.0


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached."""


def run_batch(
    jobs: list[Job], options: RunOptions, limiter: Any = None, slots: int = 1
) -> Iterator[list[tuple[str, Any]]]:
    """In a Ray worker: run the batch, `slots` scenarios at a time, yielding lists of
    ("started", key) before a scenario's code runs and ("done", outcome) after."""

    gate = _ActorGate(limiter) if limiter is not None else None
    timeout = options.scenario_timeout
    running: dict[int, float] = {}  # key -> when it started, for the watchdog
    events: queue.Queue[tuple[str, Any] | None] = queue.Queue()
    done = threading.Event()
    threading.Thread(target=_watch, args=(running, timeout, done), daemon=True).start()

    def loop() -> None:
        # Not asyncio.run: it waits for the default executor's threads, and a target call
        # stopped at its deadline may never return.
        runner = asyncio.new_event_loop()
        try:
            runner.run_until_complete(
                _run_all(jobs, slots, timeout, running, events, options.settings, gate)
            )
        finally:
            runner.close()
            events.put(None)

    try:
        with capture.installed():
            threading.Thread(target=loop, daemon=True).start()
            yield from _gathered(events)
    finally:
        done.set()  # Ray reuses its worker processes: no watchdog may outlive its batch


# Each item a streaming task yields is a Ray object (put, announced, fetched): yielding the
# messages of the last few milliseconds as one item, not one each, keeps that cost off a
# run of thousands of scenarios a second; a quiet task still sends each message at once.
GATHER_SECONDS = 0.02
GATHER_MOST = 512


def _gathered(events: queue.Queue[tuple[str, Any] | None]) -> Iterator[list[tuple[str, Any]]]:
    """The events until the None that ends them, in lists of what came close together."""
    while (event := events.get()) is not None:
        found = [event]
        until = time.monotonic() + GATHER_SECONDS
        while len(found) < GATHER_MOST and (left := until - time.monotonic()) > 0:
            try:
                more = events.get(timeout=left)
            except queue.Empty:
                break
            if more is None:
                yield found
                return
            found.append(more)
        yield found


async def _run_all(
    jobs: list[Job],
    slots: int,
    timeout: float,
    running: dict[int, float],
    events: queue.Queue[tuple[str, Any] | None],
    settings: Settings,
    gate: Any,
) -> None:
    root = os.getcwd()  # Ray's working_dir: the workspace root
    semaphore = asyncio.Semaphore(max(1, slots))

    async def one(job: Job) -> None:
        scenario = job.scenario.placed(
            [d if os.path.isabs(d) else os.path.join(root, d) for d in job.scenario.base_dirs]
        )
        async with semaphore:
            events.put(("started", job.key))
            running[job.key] = time.monotonic()
            with capture.capturing() as captured:
                ending = Ending.FINISHED
                try:
                    result = await asyncio.wait_for(
                        run_job(replace(job, scenario=scenario), settings, gate), timeout
                    )
                except TimeoutError:
                    ending = Ending.TIMEOUT
                    message = timeout_message(timeout)
                    result = stopped(scenario, message, exception_type="ScenarioTimeout")
            running.pop(job.key, None)
            events.put(("done", Outcome(job.key, result, captured.text(), ending)))

    await asyncio.gather(*(one(job) for job in jobs))


class _ActorGate:
    """Provider limits asked of the run's limiter actor (one for all the cluster's tasks)."""

    def __init__(self, actor: Any) -> None:
        self._actor = actor

    async def acquire(self, model: str, tokens: int, cost: float = 0.0) -> object:
        ticket, refused = await self._actor.acquire.remote(model, tokens, cost)
        if refused is not None:
            raise limits.BudgetReached(refused)
        return ticket

    async def release(self, ticket: object, spent: float = 0.0) -> None:
        await self._actor.release.remote(ticket, spent)


class LimiterActor:
    """The run's RateLimiter as a Ray actor (async: waiting callers do not block it)."""

    def __init__(self, limits: Any, max_cost: float | None = None) -> None:
        self._limiter = RateLimiter(limits, max_cost)

    async def acquire(self, model: str, tokens: int, cost: float = 0.0) -> tuple[Any, str | None]:
        """(ticket, None), or (None, why) past the budget (an exception would be Ray's)."""
        try:
            return await self._limiter.acquire(model, tokens, cost), None
        except BudgetReached as exc:
            return None, str(exc)

    async def release(self, ticket: object, spent: float = 0.0) -> None:
        await self._limiter.release(ticket, spent)

    def peak_in_flight(self) -> int:
        return self._limiter.peak_in_flight


def _watch(running: dict[int, float], timeout: float, done: threading.Event) -> None:
    """Ends the worker process when a scenario is stuck past its deadline (blocking code
    that the soft timeout cannot interrupt); the driver reports it from the "started"."""
    while not done.wait(0.25):
        now = time.monotonic()
        if any(now - since > timeout + GRACE_SECONDS for since in list(running.values())):
            os._exit(3)


class RayExecutor(Executor):
    def __init__(
        self,
        *,
        address: str | None,
        root: Path | None,
        concurrency: int = 8,
        batch_size: int = 4,
        num_cpus: int | None = None,
    ) -> None:
        self.address = address
        self.root = (root or Path.cwd()).resolve()
        self.concurrency = max(1, concurrency)
        self.batch_size = max(1, batch_size)
        self._num_cpus = num_cpus
        self._ray: Any = None
        self._remote: Any = None
        self._cancelled = False
        self._running: dict[Any, list[Job]] = {}
        self._stdout: Any = None
        self._watchdog: subprocess.Popen[bytes] | None = None
        self.slots = 1
        self.limiter: Any = None  # the run's LimiterActor when it has provider limits

    def connect(self) -> None:
        """Join (or start) the cluster now; RayUnavailable with the reason when it fails."""
        if self._ray is not None:
            return
        # Ray reports usage statistics over the network unless told not to.
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        try:
            import ray
        except ImportError:
            raise RayUnavailable(
                "the Ray executor needs Ray: pip install 'checkspec[ray]'"
            ) from None
        runtime_env: dict[str, Any] = {"working_dir": str(self.root), "excludes": EXCLUDES}
        # The CHECKSPEC_* variables (the provider key among them) go with the code: the
        # cluster's workers do not see this machine's environment.
        forwarded = {k: v for k, v in os.environ.items() if k.startswith("CHECKSPEC_")}
        if forwarded:
            runtime_env["env_vars"] = forwarded
        # Ray prints its raylet's error messages (a worker died...) on sys.stdout, where a
        # report may be going: send them to stderr while Ray is connected.
        self._stdout, sys.stdout = sys.stdout, sys.stderr
        if self.address and (problem := _unreachable(self.address)):
            raise RayUnavailable(f"cannot reach the Ray cluster at {self.address}: {problem}")
        try:
            ray.init(
                address=self.address,
                runtime_env=runtime_env,
                include_dashboard=False,
                log_to_driver=False,
                num_cpus=self._num_cpus if self.address is None else None,
                ignore_reinit_error=True,
                logging_level=logging.ERROR,
            )
        except Exception as exc:  # ConnectionError, a timeout, a refused address
            where = f"the Ray cluster at {self.address}" if self.address else "a local Ray"
            raise RayUnavailable(f"cannot reach {where}: {type(exc).__name__}: {exc}") from None
        if self.address is None:  # a local cluster of this run's own: it ends with the run
            self._watchdog = _watch_session(ray)
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        # One task per CPU at a time; scenarios mostly wait (targets, models), so each task
        # runs its share of `concurrency` at once, as a local worker process does.
        self.slots = max(1, math.ceil(self.concurrency / cpus))
        self._ray = ray
        # max_calls=1: a fresh process per batch, so a thread left behind by a stopped call
        # never reaches another batch, and each batch imports the workspace's code afresh.
        self._remote = ray.remote(num_returns="streaming", max_retries=0, num_cpus=1, max_calls=1)(
            run_batch
        )

    async def stream(
        self, jobs: Sequence[Job], options: RunOptions
    ) -> AsyncGenerator[Outcome, None]:
        self.connect()
        self._cancelled = False
        limits = options.settings.limits
        max_cost = options.settings.max_cost
        gated = limits or max_cost is not None
        actor = self._ray.remote(num_cpus=0)(LimiterActor)
        self.limiter = actor.remote(limits, max_cost) if gated else None
        results: asyncio.Queue[Outcome | None] = asyncio.Queue()
        # Two tasks a CPU: each task is a fresh process (max_calls=1) that pays Ray's
        # worker start and the imports, so small batches spent the run starting processes
        # (3,000 scenarios in batches of 128: 15% of the provider bound); results still
        # stream back one by one, and a lost task's unstarted scenarios go out again.
        cpus = max(1, int(self._ray.cluster_resources().get("CPU", 1)))
        size = max(self.batch_size, self.slots, math.ceil(len(jobs) / (2 * cpus)))
        batches = [
            [self._portable(job) for job in jobs[i : i + size]] for i in range(0, len(jobs), size)
        ]
        consumers = [asyncio.ensure_future(self._consume(b, options, results)) for b in batches]
        remaining = len(jobs)
        try:
            while remaining:
                outcome = await results.get()
                if outcome is None:
                    continue
                remaining -= 1
                yield outcome
        finally:
            for consumer in consumers:
                consumer.cancel()
            self._cancel_tasks()

    def _portable(self, job: Job) -> Job:
        """The job with its base folders relative to the workspace root (the working_dir)."""
        folders = []
        for folder in job.scenario.base_dirs:
            path = Path(folder).resolve()
            folders.append(
                path.relative_to(self.root).as_posix() or "."
                if path.is_relative_to(self.root)
                else str(path)
            )
        return replace(job, scenario=job.scenario.placed(folders))

    async def _consume(
        self, batch: list[Job], options: RunOptions, results: asyncio.Queue[Outcome | None]
    ) -> None:
        """Submit a batch and pass on its outcomes; a lost task's leftovers go out again.

        The driver learns that a job started only when that message arrives, and a task that
        dies may take its last messages with it: a job not seen starting may be the one that
        killed it. So a dead task's unfinished jobs are blamed only when there is one; else
        those seen starting go out alone and the others as a suspect batch, whose own death
        sends every job of it out alone."""
        pending: list[tuple[list[Job], str]] = [(batch, "batch")]
        while pending:
            batch, mode = pending.pop()
            if self._cancelled:
                for job in batch:
                    results.put_nowait(_cancelled(job))
                continue
            slots = 1 if mode == "solo" else self.slots
            generator = self._remote.remote(batch, options, self.limiter, slots)
            self._running[generator] = batch
            started: dict[int, float] = {}
            began = time.monotonic()
            unfinished = {job.key: job for job in batch}
            try:
                async for ref in generator:
                    for kind, value in await ref:
                        if kind == "started":
                            started[value] = time.monotonic()
                        else:
                            started.pop(value.key, None)
                            unfinished.pop(value.key, None)
                            results.put_nowait(value)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the task died: a crash, the watchdog, a lost node
                batch = list(unfinished.values())
                if self._cancelled:
                    pending.append((batch, "batch"))
                    continue
                now = time.monotonic()
                late = {k for k, since in started.items() if now - since > options.scenario_timeout}
                left = [job for job in batch if job.key not in late]
                for job in batch:
                    if job.key in late:
                        results.put_nowait(_lost(job, exc, now - started[job.key], options))
                if mode == "solo" or (len(left) == 1 and not late):
                    for job in left:
                        since = started.get(job.key, began)
                        results.put_nowait(_lost(job, exc, now - since, options))
                    continue
                seen = [job for job in left if job.key in started]
                unseen = [job for job in left if job.key not in started]
                pending += [([job], "solo") for job in seen]
                if unseen and mode == "suspect":
                    pending += [([job], "solo") for job in unseen]
                elif unseen:
                    pending.append((unseen, "suspect"))
            finally:
                self._running.pop(generator, None)

    def cancel(self) -> None:
        self._cancelled = True
        self._cancel_tasks()

    def _cancel_tasks(self) -> None:
        if self._ray is None:
            return
        for generator in list(self._running):
            with contextlib.suppress(Exception):  # already finished
                self._ray.cancel(generator, force=True)

    async def aclose(self) -> None:
        if self._ray is not None:
            self._ray.shutdown()
            self._ray = None
        if self._watchdog is not None:  # its end of input: what shutdown left goes too
            with contextlib.suppress(OSError):
                self._watchdog.communicate(timeout=10)
            self._watchdog = None
        if self._stdout is not None:
            sys.stdout, self._stdout = self._stdout, None


# Run by a process of its own next to the driver: when its input ends (the driver is
# gone, whichever way, or shut Ray down), every process still writing into the local
# cluster's session folder is killed. Ray's own processes die with the driver, but its
# agents (dashboard, runtime env), children of the raylet, linger for a minute; their
# names are rewritten, their log files are not. Linux only (/proc); elsewhere: nothing.
_WATCHDOG = """
import os, signal, sys
session = sys.argv[1].rstrip("/") + "/"
spared = {os.getpid(), os.getppid()}  # this one, and the driver (alive after a shutdown)
sys.stdin.buffer.read()
if os.path.isdir("/proc"):
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) in spared:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
            if any(os.readlink(f"/proc/{pid}/fd/{fd}").startswith(session) for fd in fds):
                os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
"""


def _watch_session(ray: Any) -> subprocess.Popen[bytes] | None:
    """Start the watchdog of this run's local cluster (None when its folder is unknown)."""
    try:
        session = ray._private.worker.global_worker.node.get_session_dir_path()  # noqa: SLF001
    except Exception:  # another Ray's internals: the cluster lingers as it used to
        return None
    try:
        return subprocess.Popen(
            [sys.executable, "-c", _WATCHDOG, session],
            stdin=subprocess.PIPE,
            start_new_session=True,  # not in the way of Ctrl-C, not killed with the group
        )
    except OSError:
        return None


def _unreachable(address: str, timeout: float = 5.0) -> str | None:
    """Why nothing answers at a `host:port` / `ray://host:port` address (Ray itself would
    retry for minutes); None when something listens, or for `auto` (Ray looks it up)."""
    import socket
    from urllib.parse import urlsplit

    if address == "auto":
        return None
    parts = urlsplit(address if "://" in address else f"ray://{address}")
    if parts.hostname is None or parts.port is None:
        return None
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=timeout):
            return None
    except OSError as exc:
        return exc.strerror or str(exc) or type(exc).__name__


def _cancelled(job: Job) -> Outcome:
    why = "not run: the run was cancelled"
    return Outcome(job.key, not_run(job.scenario, why), ending=Ending.CANCELLED)


def _lost(job: Job, exc: BaseException, elapsed: float, options: RunOptions) -> Outcome:
    timeout = options.scenario_timeout
    if elapsed > timeout:
        result = stopped(job.scenario, timeout_message(timeout), exception_type="ScenarioTimeout")
        return Outcome(job.key, result, ending=Ending.TIMEOUT)
    why = f"the Ray task running this scenario was lost ({type(exc).__name__}: {exc})"
    return Outcome(
        job.key,
        stopped(job.scenario, why[:2000], exception_type="WorkerDied"),
        ending=Ending.CRASHED,
    )
