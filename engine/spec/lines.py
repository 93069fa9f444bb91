"""Lines as editors count them: the one line index of the product.

LSP ends a line at `\\n`, `\\r\\n` or `\\r`, and nowhere else. `str.splitlines` also breaks
at form feeds, `\\x1c`-`\\x1e`, U+0085, U+2028 and U+2029, and the YAML reader at the last
three: either would put every later position on the wrong line. The readers' positions,
problems, symbols and the LSP conversions all count lines through this module.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from .problems import Position, Range

_BREAK = re.compile(r"\r\n|\r|\n")
# Past this many lines ahead, finding line starts one at a time costs more than all at once.
_STEPWISE = 64


def split_lines(text: str) -> list[str]:
    """The lines of `text` without their breaks (a trailing break gives a last empty line)."""
    return _BREAK.split(text)


def line_count(text: str) -> int:
    """How many lines an editor shows for `text` (at least one)."""
    return text.count("\n") + text.count("\r") - text.count("\r\n") + 1


class LineIndex:
    """Offsets <-> positions (0-based line, code-point column) of one text.

    Line starts are found on demand, so asking about the first lines of a huge text (a
    problem at 0:0 of a refused 50 MB file) does not scan all of it.
    """

    __slots__ = ("_complete", "_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = [0]
        self._complete = False

    def _reach(self, line: int) -> None:
        """Know where `line` ends: the start of the line after it, or that it is the last."""
        starts, text = self._starts, self.text
        if self._complete or line + 1 < len(starts):
            return
        if line + 1 - len(starts) > _STEPWISE:
            starts.extend(m.end() for m in _BREAK.finditer(text, starts[-1]))
            self._complete = True
            return
        while line + 1 >= len(starts):
            found = _BREAK.search(text, starts[-1])
            if found is None:
                self._complete = True
                return
            starts.append(found.end())

    def _all(self) -> list[int]:
        self._reach(len(self.text) + 1)
        return self._starts

    def __len__(self) -> int:
        """The number of lines."""
        return len(self._all())

    def line(self, number: int) -> str:
        """The text of one line without its break ("" outside the document)."""
        if number < 0:
            return ""
        self._reach(number)
        starts = self._starts
        if number >= len(starts):
            return ""
        start = starts[number]
        if number + 1 < len(starts):
            end = starts[number + 1]
            end -= 2 if self.text.startswith("\r\n", end - 2) else 1
        else:
            end = len(self.text)
        return self.text[start:end]

    def position(self, offset: int) -> Position:
        """The position of a character offset (clamped to the text)."""
        offset = max(0, min(offset, len(self.text)))
        starts = self._all()
        line = bisect_right(starts, offset) - 1
        # An offset between \r and \n belongs to the end of the line they close.
        return Position(line, min(offset - starts[line], len(self.line(line))))

    def offset(self, pos: Position) -> int:
        """The character offset of a position (clamped to its line and the text)."""
        if pos.line < 0:
            return 0
        self._reach(pos.line)
        if pos.line >= len(self._starts):
            return len(self.text)
        return self._starts[pos.line] + max(0, min(pos.character, len(self.line(pos.line))))

    @property
    def end(self) -> Position:
        last = len(self._all()) - 1
        return Position(last, len(self.line(last)))

    def clamp(self, pos: Position) -> Position:
        """The nearest position inside the document."""
        if pos.line < 0:
            return Position(0, 0)
        self._reach(pos.line)
        if pos.line >= len(self._starts):
            return self.end
        width = len(self.line(pos.line))
        if 0 <= pos.character <= width:
            return pos
        return Position(pos.line, max(0, min(pos.character, width)))

    def clamp_range(self, rng: Range) -> Range:
        start, end = self.clamp(rng.start), self.clamp(rng.end)
        return Range(start, end) if start <= end else Range(start, start)

    def contains(self, rng: Range) -> bool:
        """Whether both ends of `rng` are positions inside the document, in order."""
        return (
            rng.start <= rng.end
            and self.clamp(rng.start) == rng.start
            and self.clamp(rng.end) == rng.end
        )

    def slice(self, rng: Range) -> str:
        """The text a range covers."""
        return self.text[self.offset(rng.start) : self.offset(rng.end)]
