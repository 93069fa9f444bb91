"""Third-party work run without coverage's tracer.

Under `make test` coverage.py traces every Python call, its own files or not: code with
no line of engine/ or server/ in it (jsonschema validating a corpus against the committed
schemas) runs 3-4 times slower traced, for nothing measured. Only for such code: what
runs inside is not measured.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def unmeasured() -> Iterator[None]:
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
