"""The type parameters every generic model of the engine shares.

`Trace[str, str]`, `Check[str, str, Trace]`, `Scenario[...]` are parameterized with these
(typing.Generic, so Python 3.11 works). Sharing one set of TypeVars matters for speed:
`Step[InputType, OutputType, TraceType]` inside `Scenario` is then `Step` itself, not a
new parametrized class that every validation would build instances of.
"""

from __future__ import annotations

from typing import TypeVar

InputType = TypeVar("InputType")
OutputType = TypeVar("OutputType")
ExpectedType = TypeVar("ExpectedType")
# TraceType (bound to Trace) lives in trace.py, next to the class it is bound to.

__all__ = ["ExpectedType", "InputType", "OutputType"]
