"""Exceptions of interaction and input generation (names as in the reference library)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .trace import Trace


class InputGenerationException(Exception):
    """An input generator could not produce a valid input (e.g. schema incompatibility)."""


class InteractionGenerationError(Exception):
    """An interaction spec failed; `partial_trace` holds what was generated before.

    The error that stopped the generator is chained as `__cause__`.
    """

    def __init__(self, partial_trace: Trace[Any, Any]) -> None:
        super().__init__("Interaction generation failed")
        self.partial_trace = partial_trace


__all__ = ["InputGenerationException", "InteractionGenerationError"]
