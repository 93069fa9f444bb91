"""Two YAML traps people fall into, turned into hints instead of silence or a puzzle.

- `inputs: Where is my order #12345?`: ` #` starts a comment, so the value silently becomes
  "Where is my order". Where a comment follows a plain text value after a single blank
  (comments meant as such are set apart by two, yamllint's default), an info problem
  suggests quotes, with the quoted text as a fix.
- `{inputs: Hello, the UK and Switzerland.}`: inside `{...}` a comma ends the value, so
  "the UK and Switzerland." becomes a key, reported as an unknown parameter; the message
  then says the value needs quotes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from .lines import LineIndex
from .problems import Position, Problem, Range, Severity, TextEdit
from .tree import Node, Source

# Keys whose values are free text (messages, answers, keywords), where `#` is likely meant.
TEXT_KEYS = frozenset(
    {
        "inputs",
        "outputs",
        "input",
        "output",
        "content",
        "keyword",
        "text",
        "expected_value",
        "reference",
        "reference_text",
        "context",
        "rule",
        "question",
        "answer",
        "prompt",
    }
)


def comment_hints(source: Source) -> list[Problem]:
    """An info problem for each text value a ` #` comment cuts short."""
    return hints_for(source.cut_values, source.lines)


def hints_for(cut_values: Iterable[tuple[Node, Node]], lines: LineIndex) -> list[Problem]:
    """`comment_hints` for some of the cut values of a text (`lines` indexes that text)."""
    hints = []
    for key, value in cut_values:
        if key.value not in TEXT_KEYS or not isinstance(value.value, str):
            continue
        start, end = value.range.start, value.range.end
        line = lines.line(end.line)
        comment = line[end.character :].strip()
        message = (
            f"'{key.value}' is {value.value!r}: YAML reads ' {comment}' as a comment; if it is "
            "part of the text, put the whole text in quotes"
        )
        fix: tuple[TextEdit, ...] = ()
        if start.line == end.line:
            whole = line[start.character :].rstrip()
            edit_range = Range(start, Position(end.line, start.character + len(whole)))
            fix = (TextEdit(edit_range, json.dumps(whole, ensure_ascii=False)),)
        whole_line = Range(start, Position(end.line, len(line.rstrip())))
        hints.append(
            Problem(
                "comment-in-text",
                message,
                whole_line if start.line == end.line else Range(end, whole_line.end),
                Severity.INFORMATION,
                fix=fix,
                fix_title="Quote the text, comment included" if fix else None,
            )
        )
    return hints


def comma_hint(parent: Node, key: Node) -> str:
    """For an unknown key that is text cut off by a comma in `{...}`: what to do, else ""."""
    if parent.kind != "mapping" or key.kind != "scalar" or not isinstance(key.value, str):
        return ""
    previous = None
    for entry_key, entry_value in parent.entries:
        if entry_key is key:
            value = entry_value
            break
        previous = (entry_key, entry_value)
    else:
        return ""
    implicit = value.value is None and value.range.start == value.range.end
    if previous is None or not implicit:
        return ""
    before_key, before = previous
    same_line = before.range.end.line == key.range.start.line
    if not same_line or before.kind != "scalar" or not isinstance(before.value, str):
        return ""
    return (
        f"; inside {{...}} a comma ends a value: if '{key.value}' belongs to "
        f"'{before_key.value}', put that whole value in quotes"
    )
