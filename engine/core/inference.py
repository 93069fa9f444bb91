"""What a target's type hints say: its parameters, and the input type it takes.

`outputs=lambda inputs: ...` needs nothing; `def agent(q: Question, t: MyTrace)` lets
input generators produce `Question`s (and, core/trace.py, the scenario build `MyTrace`s).
"""

from __future__ import annotations

import inspect
from typing import Any, get_type_hints


def parameter_hints(target: object) -> dict[str, Any]:
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
    hints = parameter_hints(outputs)
    if not hints:
        return None
    first = next(iter(hints.values()))
    from pydantic import PydanticUserError, TypeAdapter

    try:
        TypeAdapter(first)
    except (PydanticUserError, TypeError):
        return None
    return first
