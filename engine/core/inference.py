"""What a target's type hints say: the input type it takes, the trace type it wants.

`outputs=lambda inputs: ...` needs nothing; `def agent(q: Question, t: MyTrace)` makes
the scenario build `MyTrace`s and lets input generators produce `Question`s.
"""

from __future__ import annotations

import inspect
from itertools import islice
from typing import Any, get_origin, get_type_hints


def _param_hints(target: object) -> dict[str, Any]:
    """Parameter annotations in order (no 'return'); {} when they cannot be read."""
    if not callable(target):
        return {}
    try:
        hints = get_type_hints(target)
    except TypeError:
        hints = {}
    except Exception:
        return {}
    params = {k: v for k, v in hints.items() if k != "return"}
    if not params and not (
        inspect.isfunction(target) or inspect.ismethod(target) or inspect.isclass(target)
    ):
        try:  # a callable object: its __call__
            call = get_type_hints(type(target).__call__)
        except Exception:
            return {}
        call.pop("self", None)
        params = {k: v for k, v in call.items() if k != "return"}
    return params


def infer_input_type(outputs: object) -> type | None:
    """The annotation of the target's first parameter when pydantic can validate it."""
    hints = _param_hints(outputs)
    if not hints:
        return None
    first = next(iter(hints.values()))
    from pydantic import PydanticUserError, TypeAdapter

    try:
        TypeAdapter(first)
    except (PydanticUserError, TypeError):
        return None
    return first


def infer_trace_type(target: object) -> Any:
    """The annotation of the target's second parameter if it is a Trace type, else None."""
    from .trace import Trace

    hints = _param_hints(target)
    if len(hints) < 2:
        return None
    second = next(islice(hints.values(), 1, None))
    origin = get_origin(second) or second
    try:
        if isinstance(origin, type) and issubclass(origin, Trace):
            return second
    except TypeError:
        pass
    return None
