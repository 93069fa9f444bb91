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

_GENERATORS = "checkspec.engine.generators"


class InputGenerator(KindModel, Generic[TraceType]):
    """Base of the input generators; subclasses implement `__call__`."""

    # a built-in kind read imports engine/generators/ (core/check.py's _BuiltIns)
    _registry: ClassVar[dict[str, type[KindModel]]] = _BuiltIns(
        dict.fromkeys(("llm_generator", "dataset_input", "user_simulator"), _GENERATORS)
    )

    def __call__(self, trace: Any, input_type: type[Any] | None = None) -> AsyncGenerator[Any, Any]:
        raise NotImplementedError


__all__ = ["InputGenerator"]
