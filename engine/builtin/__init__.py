"""The built-in checks, under the module path the reference library uses.

`from checkspec.engine.builtin import StringMatching` (and the submodules,
`checkspec.engine.builtin.text_matching`...) work as `giskard.checks.builtin` does.
The checks themselves live in engine/checks (deterministic) and engine/judges
(semantic_similarity); this package only names them.
"""

import sys
from importlib import import_module

from ..checks import (
    AllOf,
    AnyOf,
    Equals,
    FnCheck,
    GreaterThan,
    GreaterThanEquals,
    JsonValid,
    LessThan,
    LessThanEquals,
    Not,
    NotEquals,
    Readability,
    RegexMatching,
    RegoPolicy,
    StringMatching,
    from_fn,
)
from ..judges.semantic_similarity import SemanticSimilarity

# builtin.<name> -> the module that defines it here (same module object, not a copy).
_SUBMODULES = {
    "comparison": "checks.comparison",
    "composition": "checks.composition",
    "fn": "checks.fn",
    "json_valid": "checks.json_valid",
    "nlp_metrics": "checks.readability",
    "rego_policy": "checks.rego_policy",
    "semantic_similarity": "judges.semantic_similarity",
    "text_matching": "checks.text_matching",
}
_engine = __name__.rsplit(".", 1)[0]
for _name, _target in _SUBMODULES.items():
    sys.modules[f"{__name__}.{_name}"] = import_module(f"{_engine}.{_target}")
    globals()[_name] = sys.modules[f"{__name__}.{_name}"]

__all__ = [
    "AllOf",
    "AnyOf",
    "Equals",
    "FnCheck",
    "GreaterThan",
    "GreaterThanEquals",
    "JsonValid",
    "LessThan",
    "LessThanEquals",
    "Not",
    "NotEquals",
    "Readability",
    "RegexMatching",
    "RegoPolicy",
    "SemanticSimilarity",
    "StringMatching",
    "from_fn",
]
