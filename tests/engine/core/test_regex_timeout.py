"""regex_matching's match_timeout_seconds is honoured in wall time, also on a busy machine."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
import regex

from checkspec.engine import Interaction, RegexMatching, Trace
from checkspec.engine.core.timed_regex import search

CATASTROPHIC = regex.compile("^(a|aa)+$")
SLOW_TEXT = "a" * 60 + "b"


@pytest.fixture
def busy_machine() -> Iterator[None]:
    """Every core busy, as on a CI runner or a laptop building something: the process gets
    a fraction of the CPU, so a CPU-time timeout would run several times longer."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(4)]
    time.sleep(0.2)
    yield
    for burner in burners:
        burner.kill()
        burner.wait()


async def test_the_timeout_is_honoured_within_20_percent_on_a_busy_machine(
    busy_machine: None,
) -> None:
    check = RegexMatching(pattern=CATASTROPHIC.pattern, match_timeout_seconds=1.0)
    trace = Trace(interactions=[Interaction(inputs="q", outputs=SLOW_TEXT)])
    started = time.perf_counter()
    result = await check.run(trace)
    elapsed = time.perf_counter() - started
    assert result.errored
    assert "exceeded timeout of 1.0s" in (result.message or "")
    assert 0.95 <= elapsed <= 1.2, elapsed


def test_a_quick_search_does_not_touch_the_alarm() -> None:
    assert search(regex.compile("b"), SLOW_TEXT, 1.0) is not None
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_search_past_its_deadline_leaves_the_alarm_as_it_was() -> None:
    with pytest.raises(TimeoutError, match=r"more than 0\.1 s"):
        search(CATASTROPHIC, SLOW_TEXT, 0.1)
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_an_alarm_in_use_elsewhere_is_left_alone() -> None:
    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 5.0)
        with pytest.raises(TimeoutError):
            search(CATASTROPHIC, SLOW_TEXT, 0.1)  # the CPU timeout still bounds it
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0  # their timer is still running
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_off_the_main_thread_the_cpu_timeout_bounds_the_search() -> None:
    outcome: list[str] = []

    def run() -> None:
        try:
            search(CATASTROPHIC, SLOW_TEXT, 0.1)
        except TimeoutError:
            outcome.append("timeout")

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(20)
    assert outcome == ["timeout"]


def test_regex_own_timeout_reads_as_the_deadline_too(monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the alarm (off the main thread, or in use elsewhere) regex's own CPU timeout
    # bounds the search; its "regex timed out" must not leak out as another message, nor
    # when it fires at the same moment as the timer.
    from checkspec.engine.core import timed_regex

    monkeypatch.setattr(timed_regex, "_alarm_is_free", lambda: False)
    with pytest.raises(TimeoutError, match=r"^regex search took more than 0\.1 s$"):
        search(CATASTROPHIC, SLOW_TEXT, 0.1)
    with pytest.raises(TimeoutError, match=r"^regex search took more than 0\.01 s$"):
        search(CATASTROPHIC, SLOW_TEXT, 0.01)
