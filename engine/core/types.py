"""`Target`: what answers an interaction (a value, or a sync/async callable of the inputs,
or of the inputs and the trace), generic like the reference library's type alias."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Union

from typing_extensions import TypeAliasType

from .trace import TraceType
from .typevars import InputType, OutputType

Target = TypeAliasType(
    "Target",
    Union[  # noqa: UP007 - a TypeAliasType value must be a runtime expression
        OutputType,
        Callable[[InputType], OutputType | Awaitable[OutputType]],
        Callable[[InputType, TraceType], OutputType | Awaitable[OutputType]],
    ],
    type_params=(InputType, OutputType, TraceType),
)

__all__ = ["Target"]
