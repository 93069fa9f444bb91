"""Text from users' files, models and agents made safe for where it is shown.

`terminal(text)`: for the CLI's text outputs. Control characters (C0 but tab and line
feed, DEL, C1) and the bidirectional overrides are shown as escapes (`\\x1b`, `\\u202e`),
so a name, tag, file name or output cannot move the cursor, recolour, retitle or reorder
the terminal. `terminal(text, one_line=True)` also shows a line break as a space.

`markdown_cell(text)`: for a cell of a Markdown table (the pull-request comment): one line
(`\\r`, `\\n`, U+2028 and the other line breaks become spaces), the table's pipes escaped,
HTML inert (`&`, `<`, `>` as entities), and the punctuation of links, images, emphasis,
code spans and headings backslash-escaped, so `[text](url)` and `![img](url)` are text.
`markdown_code(text)`: for inside a code span (no backtick can close it, pipes escaped).
"""

from __future__ import annotations

import re

_LINE_BREAKS = re.compile(r"\r\n|[\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROLS_BUT_NEWLINE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
_MD_PUNCTUATION = re.compile(r"([\\`*_\[\]()!~|#{}])")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal(text: str, *, one_line: bool = False) -> str:
    """`text` with no control character left to act on a terminal (see the module)."""
    if one_line:
        return _CONTROLS.sub(_escape, _LINE_BREAKS.sub(" ", text))
    return _CONTROLS_BUT_NEWLINE.sub(_escape, text.replace("\r\n", "\n"))


def markdown_cell(text: str) -> str:
    """`text` as plain text in one Markdown table cell (see the module)."""
    text = terminal(text, one_line=True)
    text = _MD_PUNCTUATION.sub(r"\\\1", text)
    return re.sub(r"[&<>]", lambda m: _HTML[m.group()], text)


def markdown_code(text: str) -> str:
    """`text` inside a single-backtick code span of a table cell."""
    return terminal(text, one_line=True).replace("`", "'").replace("|", "\\|")
