"""Built-in deterministic checks; importing this package registers them."""

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
