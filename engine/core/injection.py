"""Calling user callables (inputs, outputs, targets) with the values they ask for.

The reference library injects by parameter name (`lambda inputs, trace: ...`,
`def make_input(trace, input_type)`); spec files and our own API also accept
positional callables (`lambda q: ...`, `def answer(question, trace)`). A callable whose
required parameters all have injectable names gets them by name; any other gets the
values in order, as many as it takes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def arguments(
    fn: Callable[..., Any], values: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """(args, kwargs) to call `fn` with, picked from `values` (ordered by preference)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # builtins without a signature: the first value
        return tuple(values.values())[:1], {}
    named = [p for p in params if p.kind not in _VARIADIC]
    required = [p for p in named if p.default is inspect.Parameter.empty]
    if named and all(p.name in values for p in required) and any(p.name in values for p in named):
        args = tuple(
            values[p.name]
            for p in named
            if p.kind is inspect.Parameter.POSITIONAL_ONLY and p.name in values
        )
        kwargs = {
            p.name: values[p.name]
            for p in named
            if p.kind is not inspect.Parameter.POSITIONAL_ONLY and p.name in values
        }
        return args, kwargs
    ordered = tuple(values.values())
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return ordered, {}
    return ordered[: len([p for p in named if p.kind in _POSITIONAL])], {}


def is_async_callable(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - async callable objects
    )


async def call_injected(
    fn: Callable[..., Any], values: dict[str, Any], thread: bool = False
) -> Any:
    """Call `fn` with the values it asks for; await the result if it is awaitable.

    With `thread`, a synchronous fn runs in a worker thread so a slow agent does not
    stall the other scenarios of a concurrent run.
    """
    args, kwargs = arguments(fn, values)
    if is_async_callable(fn):
        return await fn(*args, **kwargs)
    if thread:
        from .user_thread import in_own_thread  # deferred: validating calls no target

        result = await in_own_thread(fn, *args, **kwargs)
    else:
        result = fn(*args, **kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result
