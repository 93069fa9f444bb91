"""Reading spec files: located parse trees and the problems found while reading them."""

from .problems import Position, Problem, Range, Severity, TextEdit
from .source import Key, Node, Source, parse_jsonl_lines, parse_source

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
