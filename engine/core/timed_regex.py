"""Regex searches that stop at a wall-clock deadline.

The `regex` module's own `timeout` counts the process's CPU time: on a busy machine a
1 s timeout ran 1.1-3.1 s of wall time. A search runs first under a short CPU timeout,
which nearly all finish within; one still running is run again with a SIGALRM timer at the
deadline (regex checks for signals while matching), so it stops on time. Off the main
thread, or when SIGALRM is already in use (pytest-timeout, user code), the CPU timeout is
all there is.
"""

from __future__ import annotations

import threading
import time
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the module is imported by the callers that compile a pattern
    import regex

__all__ = ["search"]

# CPU seconds a search may take before it is worth arming a timer for it.
_QUICK = 0.02


class _Deadline(Exception):
    """Raised by the SIGALRM handler inside the search it interrupts."""


def search(pattern: regex.Pattern[str], text: str, seconds: float, pos: int = 0) -> Any:
    """`pattern.search(text)`, raising TimeoutError once `seconds` of wall time have passed."""
    started = time.perf_counter()
    try:
        return pattern.search(text, pos, timeout=min(seconds, _QUICK))
    except TimeoutError:
        if seconds <= _QUICK:
            raise TimeoutError(_too_long(seconds)) from None
    left = seconds - (time.perf_counter() - started)
    if left <= 0:
        raise TimeoutError(_too_long(seconds))
    try:
        if not _alarm_is_free():
            return pattern.search(text, pos, timeout=left)
        return _search_with_alarm(pattern, text, pos, left, seconds)
    except TimeoutError:
        # The timer's, or regex's own CPU timeout when it ends at the same moment (its
        # "regex timed out"): one message either way.
        raise TimeoutError(_too_long(seconds)) from None


def _too_long(seconds: float) -> str:
    return f"regex search took more than {seconds:g} s"


def _alarm_is_free() -> bool:
    import signal  # here, as in _search_with_alarm: validating a regex check runs none

    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        return False
    return signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.SIG_IGN, None) and (
        signal.getitimer(signal.ITIMER_REAL)[0] == 0
    )


def _search_with_alarm(
    pattern: regex.Pattern[str], text: str, pos: int, left: float, seconds: float
) -> Any:
    import signal

    armed = True

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        if armed:  # a late signal, after the search returned, is ignored
            raise _Deadline

    previous = signal.signal(signal.SIGALRM, on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, left)
        try:
            # The CPU timeout stays as a second bound (it can only be later than the timer).
            return pattern.search(text, pos, timeout=left)
        finally:
            armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Deadline:
        raise TimeoutError(_too_long(seconds)) from None
    finally:
        signal.signal(signal.SIGALRM, previous)
