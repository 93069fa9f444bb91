"""Work run without coverage's tracer, where measuring it adds nothing.

Under `make test` coverage.py traces every Python call: code runs 2-3 times slower
traced. Two kinds of work gain nothing from it and run untraced:

- third-party work with no line of engine/ or server/ in it (jsonschema validating a
  corpus against the committed schemas): `with unmeasured():`;
- volume: the same engine lines again and again (a 32,000-row dataset, a flow of a
  million items, the tenth round of random edits). A test whose lines a smaller test
  measures is marked `@pytest.mark.unmeasured` (its call runs untraced: tests/conftest.py);
  a loop measures its first rounds only (`measured_while(round < 2)`), a property test
  whose body is the cost its first examples (`measured_first(n)`).

What runs untraced is not measured: a line only such work reached would show as missed
(`make coverage`), never as covered. Most property tests gain nothing here: their traced
time is hypothesis drawing examples, not the test's body.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

# The environment of a child process coverage does not measure (volume, or an interpreter
# as a user starts it): under `make test` (patch = subprocess) these variables make every
# Python child start coverage.py.
UNMEASURED_ENV = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_PROCESS")}


@contextlib.contextmanager
def unmeasured() -> Iterator[None]:
    """No tracing in any thread while inside (coverage.py stopped, then started again)."""
    coverage = sys.modules.get("coverage")
    current = coverage.Coverage.current() if coverage is not None else None
    if current is None:
        yield
        return
    current.stop()
    try:
        yield
    finally:
        current.start()


@contextlib.contextmanager
def _paused() -> Iterator[None]:
    # This thread's tracer set aside and put back: far cheaper than stopping coverage.py
    # (which a loop would do at every round); what this thread calls inside is not seen.
    tracer = sys.gettrace()
    sys.settrace(None)
    try:
        yield
    finally:
        sys.settrace(tracer)


def measured_while(measured: bool) -> contextlib.AbstractContextManager[None]:
    """Traced when `measured`, untraced otherwise (the later rounds of a loop)."""
    return contextlib.nullcontext() if measured else _paused()


def measured_first(count: int) -> Callable[[F], F]:
    """The first `count` calls measured, the later ones not: under hypothesis' `@given`,
    for a property whose body (not the drawing of its examples) takes the time."""

    def decorate(function: F) -> F:
        calls = itertools.count()

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with measured_while(next(calls) < count):
                return function(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
