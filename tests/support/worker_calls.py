"""Functions the pool's calls run in a worker (engine/executor/pool.py `WorkerPool.call`),
sent by reference: the worker imports this module when the call's message arrives."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any


async def counts(argument: dict[str, Any], emit: Callable[[Any], None]) -> dict[str, Any]:
    """Emits 1..n, then answers with what it was given and the worker's pid."""
    for number in range(1, argument["n"] + 1):
        emit(number)
        await asyncio.sleep(0)
    return {"given": argument, "pid": os.getpid()}


async def raises(argument: str, emit: Callable[[Any], None]) -> None:
    raise ValueError(f"no good: {argument}")


async def exits(argument: int, emit: Callable[[Any], None]) -> None:
    emit("leaving")
    print("last words", flush=True)  # the worker's stdout is its stderr: kept in the tail
    os._exit(argument)


async def waits(argument: str, emit: Callable[[Any], None]) -> None:
    """Writes its pid to the file `argument` names, says so, then waits to be stopped."""
    Path(argument).write_text(str(os.getpid()))
    emit("waiting")
    await asyncio.sleep(120)


async def unsendable(argument: None, emit: Callable[[Any], None]) -> Any:
    return lambda: None  # a lambda cannot be pickled


_CALLS: list[int] = []  # this module's state: a worker that imports it afresh starts empty


async def family(argument: None, emit: Callable[[Any], None]) -> dict[str, Any]:
    """The worker's pid, parent, session, and how many calls this module has seen."""
    _CALLS.append(1)
    return {
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "sid": os.getsid(0),
        "calls": len(_CALLS),
    }
