"""The CLI's run: a run session (engine/runs/) driven under the CLI's signals.

The main process only parses files, schedules and writes reports: scenarios run in
worker processes (or in-process when asked), and each result arrives as its scenario
ends, driving the progress bar. Ctrl-C, SIGTERM (a CI runner cancelling) and SIGHUP
(a closed terminal) cancel: what finished is kept, the rest is reported as not run, and
the run exits 128 + the signal's number; a second signal stops at once.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
from collections.abc import Callable

from ..executor import WorkerPool
from ..runs.report import RunReport, ScenarioRun, scenario_identity
from ..runs.session import RunSession

__all__ = ["RunReport", "ScenarioRun", "run_session", "scenario_identity"]

# What stops a run as Ctrl-C does (SIGHUP does not exist on Windows).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None))


def run_session(
    session: RunSession,
    *,
    on_done: Callable[[ScenarioRun], None] | None = None,
    runner: asyncio.Runner | None = None,
) -> RunReport:
    """Run the session to its end or to a stop signal; its report (in the scenarios'
    order). `on_done` sees each single run (repeats too: the progress bar counts them)."""
    executor = session.executor
    assert executor is not None, "the CLI gives its session an executor"
    stopped_by: int | None = None

    async def main() -> None:
        # Returns nothing on purpose: on Python 3.11, asyncio.run() may repr() the main
        # task (and so its result) when it restores the SIGINT handler.
        loop = asyncio.get_running_loop()
        presses = 0

        def on_interrupt(signum: int) -> None:
            # Ctrl-C, and what CI runners and closed terminals send (SIGTERM, SIGHUP):
            # stop starting scenarios, cancel the running ones, keep what finished.
            nonlocal presses, stopped_by
            presses += 1
            stopped_by = stopped_by or signum
            if presses == 1:
                again = "Ctrl-C" if signum == signal.SIGINT else "the signal"
                name = signal.Signals(signum).name
                print(f"\nstopping ({name}): {again} again to stop at once", file=sys.stderr)
                session.cancel()
            else:
                if isinstance(executor, WorkerPool):
                    executor.kill_all()
                os._exit(128 + signum)

        handled = [s for s in STOP_SIGNALS if s is not None]
        for signum in handled:
            loop.add_signal_handler(signum, on_interrupt, signum)
        try:
            async for _ in session.results(on_done):
                pass
        finally:
            for signum in handled:
                loop.remove_signal_handler(signum)
            await executor.aclose()

    # The loaded documents are large and live for the whole run: move them out of the
    # collector's view so its full passes do not rescan them after every batch of results.
    gc.freeze()
    try:
        if runner is None:
            asyncio.run(main())
        else:
            runner.run(main())
    finally:
        gc.unfreeze()
    report = session.report()
    report.signal = stopped_by
    return report
