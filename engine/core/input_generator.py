"""InputGenerator: produces the inputs of a multi-turn interaction (a simulated user...).

An input generator is called with the trace (and the input type the target takes) and
returns an async generator of inputs; after each input the updated trace is sent back
(`asend`), so the next input can answer what the agent said. Registered kinds can be
written in files as an interaction's `inputs` (`{kind: user_simulator, persona: ...}`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, ClassVar, Generic

from .check import KindModel, _BuiltIns
from .trace import TraceType


class InputGenerator(KindModel, Generic[TraceType]):
    """Base of the input generators; subclasses implement `__call__`."""

    # read first, it imports the built-in generators (engine/generators/) with the engine
    _registry: ClassVar[dict[str, type[KindModel]]] = _BuiltIns()

    def __call__(self, trace: Any, input_type: type[Any] | None = None) -> AsyncGenerator[Any, Any]:
        raise NotImplementedError


__all__ = ["InputGenerator"]
