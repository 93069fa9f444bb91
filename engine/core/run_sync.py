"""`run_sync`: run an async `run(...)` from synchronous code (scripts, notebooks off-loop)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

R = TypeVar("R")


def run_sync(run: Callable[..., Awaitable[R]], *args: Any, **kwargs: Any) -> R:
    """`await run(*args, **kwargs)` on a fresh event loop, returning its result.

    Refused inside a running event loop (it would block it): await the run there.
    """
    import asyncio  # here: asyncio costs start-up that validating a file need not pay

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError(
            "run_sync() cannot be called while an asyncio event loop is running; "
            "use await obj.run(...) instead."
        )

    async def main() -> R:
        return await run(*args, **kwargs)

    return asyncio.run(main())


__all__ = ["run_sync"]
