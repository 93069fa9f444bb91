"""Built-in deterministic checks, one module each.

Each module registers its kinds when imported; the check registry imports the module of a
kind when that kind is first looked up (core/check.py BUILT_IN_CHECKS), so validating a
file of `equals` checks loads neither the Rego engine nor the readability tables. The
names below load with their module on first use."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .comparison import (
        ComparisonCheck,
        Equals,
        GreaterEquals,
        GreaterThan,
        GreaterThanEquals,
        LesserThan,
        LesserThanEquals,
        LessThan,
        LessThanEquals,
        NotEquals,
    )
    from .composition import AllOf, AnyOf, Not
    from .fn import FnCheck, from_fn
    from .hub_metadata import HubMetadata, JsonPathRule
    from .json_valid import JsonValid
    from .readability import Readability
    from .rego_policy import RegoPolicy
    from .text_matching import RegexMatching, StringMatching

_WHERE: dict[str, str] = {
    **dict.fromkeys(
        (
            "ComparisonCheck",
            "Equals",
            "GreaterEquals",
            "GreaterThan",
            "GreaterThanEquals",
            "LesserThan",
            "LesserThanEquals",
            "LessThan",
            "LessThanEquals",
            "NotEquals",
        ),
        ".comparison",
    ),
    **dict.fromkeys(
        (
            "AllOf",
            "AnyOf",
            "Not",
        ),
        ".composition",
    ),
    **dict.fromkeys(
        (
            "FnCheck",
            "from_fn",
        ),
        ".fn",
    ),
    **dict.fromkeys(
        (
            "HubMetadata",
            "JsonPathRule",
        ),
        ".hub_metadata",
    ),
    **dict.fromkeys(("JsonValid",), ".json_valid"),
    **dict.fromkeys(("Readability",), ".readability"),
    **dict.fromkeys(("RegoPolicy",), ".rego_policy"),
    **dict.fromkeys(
        (
            "RegexMatching",
            "StringMatching",
        ),
        ".text_matching",
    ),
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "AllOf",
    "AnyOf",
    "ComparisonCheck",
    "Equals",
    "FnCheck",
    "GreaterEquals",
    "GreaterThan",
    "GreaterThanEquals",
    "HubMetadata",
    "JsonPathRule",
    "JsonValid",
    "LessThan",
    "LessThanEquals",
    "LesserThan",
    "LesserThanEquals",
    "Not",
    "NotEquals",
    "Readability",
    "RegexMatching",
    "RegoPolicy",
    "StringMatching",
    "from_fn",
]
