"""Lines as editors count them (LSP: a line ends at \\n, \\r\\n or \\r, nothing else).

`str.splitlines` also breaks at form feeds, \\x1c-\\x1e and Unicode separators, which would
shift every position after such a character; this split matches the client's.
"""

from __future__ import annotations

import re

_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of `text` without their breaks (a trailing break gives a last empty line)."""
    return _BREAK.split(text)
