"""Pausing the cyclic garbage collector around bulk, acyclic allocation.

Parsing and analysing a large spec file builds hundreds of thousands of small objects
that hold no reference cycles; letting the collector rescan them as they are created
made analysis 2-3x slower. Reference counting still frees everything as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Young objects past which a bulk allocation is frozen: an analysis of a big file, not an
# edit's re-read (which is left to the ordinary young collections).
SETTLE_OBJECTS = 20_000
_freeze_bulk = False


def freeze_bulk(enabled: bool = True) -> None:
    """Have `gc_paused` freeze what a bulk allocation built (see `settle`); off by default.

    For long-lived processes holding what they build (the language server): a library
    call should not change its caller's collector otherwise.
    """
    global _freeze_bulk
    _freeze_bulk = enabled


def settle(threshold: int = SETTLE_OBJECTS) -> bool:
    """Take what was just built, if it is a lot, out of the collector's sight for good.

    After a big analysis (made under `gc_paused`) hundreds of thousands of new objects sit
    in the youngest generation: the first collection after it scans them all, and each
    later one again as they age, pauses of 0.1-5 s on some later keystroke. `gc.freeze`
    moves everything alive now to the permanent generation, which collections skip;
    frozen objects are still freed by reference counting (an analysis holds no cycles),
    so only the garbage cycles alive at this moment are kept, a few small objects.
    """
    if gc.get_count()[0] < threshold:
        return False
    gc.freeze()
    return True


@contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if _freeze_bulk:
                settle()  # before enabling: the next allocation would start a collection
            gc.enable()


def log_pauses(path: str) -> None:
    """Append each garbage collection to `path` as `generation milliseconds` (benchmarks).

    Set by CHECKSPEC_GC_LOG in the language server: bench/lsp_vs_yaml_ls.py reads it to
    show the longest pause during a series of edits.
    """
    import time

    started = [0.0]
    log = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 - kept for the process

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            log.write(f"{info['generation']} {1000 * (time.perf_counter() - started[0]):.3f}\n")

    gc.callbacks.append(callback)
