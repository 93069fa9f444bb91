"""The Giskard Hub payload of a suite result (what its evaluations upload accepts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .result import SuiteResult


def to_hub_format(result: SuiteResult) -> dict[str, Any]:
    """The suite result as JSON-ready data: its fields, counts and pass rate."""
    return result.model_dump(mode="json", fallback=str)


__all__ = ["to_hub_format"]
