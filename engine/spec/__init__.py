"""Reading spec files: located parse trees and the problems found while reading them.

The names below load on first use: the language server imports the light modules of
this package (lines, problems, kinds) before it answers `initialize`, without the YAML
reader.
"""

from typing import TYPE_CHECKING

from ..imports import lazy_names

if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors
    from .problems import Position, Problem, Range, Severity, TextEdit
    from .source import parse_jsonl_lines, parse_source
    from .tree import Key, Node, Source

_WHERE = {
    "Key": ".tree",
    "Node": ".tree",
    "Position": ".problems",
    "Problem": ".problems",
    "Range": ".problems",
    "Severity": ".problems",
    "Source": ".tree",
    "TextEdit": ".problems",
    "parse_jsonl_lines": ".source",
    "parse_source": ".source",
}


__getattr__ = lazy_names(__name__, _WHERE)

__all__ = [
    "Key",
    "Node",
    "Position",
    "Problem",
    "Range",
    "Severity",
    "Source",
    "TextEdit",
    "parse_jsonl_lines",
    "parse_source",
]
