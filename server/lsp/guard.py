"""Nothing a user types may take the server down.

Every handler is wrapped: an exception is logged (server log and window/logMessage) and
the request gets an empty answer, so the editor keeps working.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

if TYPE_CHECKING:
    from .client import Client

logger = logging.getLogger("checkspec.server")

F = TypeVar("F", bound=Callable[..., Any])


def guarded(default: Callable[[], Any] = lambda: None) -> Callable[[F], F]:
    """Return `default()` instead of raising; works for sync and async handlers."""

    def decorate(fn: F) -> F:
        if asyncio.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(ls: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    return await fn(ls, *args, **kwargs)
                except Exception as exc:
                    report(ls, fn.__name__, exc)
                    return default()

            return async_wrapper  # type: ignore[return-value]

        @functools.wraps(fn)
        def wrapper(ls: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return fn(ls, *args, **kwargs)
            except Exception as exc:
                report(ls, fn.__name__, exc)
                return default()

        return wrapper  # type: ignore[return-value]

    return decorate


def report(ls: Client, where: str, exc: BaseException) -> None:
    """Log an unexpected error where the user (and a bug report) can find it."""
    logger.exception("checkspec: %s failed", where, exc_info=exc)
    text = "".join(traceback.format_exception(exc))
    try:
        ls.window_log_message(
            types.LogMessageParams(
                type=types.MessageType.Error, message=f"checkspec: {where} failed:\n{text}"
            )
        )
    except Exception:  # the connection itself is gone: the server log has it
        logger.debug("could not send the error to the client", exc_info=True)
