"""Lines as editors count them: the one line index of the product.

LSP ends a line at `\\n`, `\\r\\n` or `\\r`, and nowhere else. `str.splitlines` also breaks
at form feeds, `\\x1c`-`\\x1e`, U+0085, U+2028 and U+2029, and the YAML reader at the last
three: either would put every later position on the wrong line. The readers' positions,
problems, symbols and the LSP conversions all count lines through this module.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate, islice
from operator import add
from weakref import WeakValueDictionary

from .problems import Position, Range

_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of `text` without their breaks (a trailing break gives a last empty line)."""
    return _BREAK.split(text)


def line_count(text: str) -> int:
    """How many lines an editor shows for `text` (at least one)."""
    return text.count("\n") + text.count("\r") - text.count("\r\n") + 1


class LineIndex:
    """Offsets <-> positions (0-based line, code-point column) of one text.

    Line starts are kept in chunks of at most `_CHUNK` lines, each relative to its first
    line's offset, and found on demand: asking about the first lines of a huge text (a
    problem at 0:0 of a refused 50 MB file) does not scan all of it. `edited` derives the
    index of an edited text by rescanning only the chunks the edit touches; the others are
    shared, their offsets moved by one number each, so an editor's keystroke in a 250,000-line
    file costs microseconds, not a scan of the file.
    """

    __slots__ = ("__weakref__", "_bases", "_chunks", "_firsts", "_next", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        # Line starts, relative to the chunk's base (machine ints: no object per line).
        self._chunks: list[array[int]] = []
        self._bases: list[int] = []  # offset of each chunk's first line
        self._firsts: list[int] = []  # number of each chunk's first line
        self._next: int | None = 0  # offset of the first line not yet in a chunk, if any

    # -- building --------------------------------------------------------------------------

    def _scan(self) -> None:
        """Add the next chunk of line starts."""
        base = self._next
        assert base is not None
        # The ends of the next _CHUNK breaks: the chunk's line starts, then the next base.
        relative = _line_feed_ends(self.text, base)
        if relative is None:
            ends = [m.end() for m in islice(_BREAK.finditer(self.text, base), _CHUNK)]
            relative = list(map(base.__rsub__, ends))
        self._next = base + relative.pop() if len(relative) == _CHUNK else None
        starts = array("q", [0])
        starts.extend(relative)
        self._firsts.append(self._firsts[-1] + len(self._chunks[-1]) if self._chunks else 0)
        self._bases.append(base)
        self._chunks.append(starts)

    def _reach(self, line: int) -> None:
        """Know where `line` ends: the start of the line after it, or that it is the last."""
        while self._next is not None and (
            not self._chunks or self._firsts[-1] + len(self._chunks[-1]) <= line + 1
        ):
            self._scan()

    def _reach_offset(self, offset: int) -> None:
        while self._next is not None and self._next <= offset:
            self._scan()

    def _complete(self) -> None:
        while self._next is not None:
            self._scan()

    def _start(self, number: int) -> int | None:
        """The offset where line `number` starts (None past the last line)."""
        self._reach(number)
        chunk = bisect_right(self._firsts, number) - 1
        if chunk < 0:
            return None
        index = number - self._firsts[chunk]
        starts = self._chunks[chunk]
        return self._bases[chunk] + starts[index] if index < len(starts) else None

    # -- queries ---------------------------------------------------------------------------

    def __len__(self) -> int:
        """The number of lines."""
        self._complete()
        return self._firsts[-1] + len(self._chunks[-1])

    def line(self, number: int) -> str:
        """The text of one line without its break ("" outside the document)."""
        if number < 0:
            return ""
        start = self._start(number)
        if start is None:
            return ""
        end = self._start(number + 1)
        if end is None:
            return self.text[start:]
        end -= 2 if self.text.startswith("\r\n", end - 2) else 1
        return self.text[start:end]

    def position(self, offset: int) -> Position:
        """The position of a character offset (clamped to the text)."""
        offset = max(0, min(offset, len(self.text)))
        self._reach_offset(offset)
        chunk = bisect_right(self._bases, offset) - 1
        base = self._bases[chunk]
        index = bisect_right(self._chunks[chunk], offset - base) - 1
        line = self._firsts[chunk] + index
        # An offset between \r and \n belongs to the end of the line they close.
        start = base + self._chunks[chunk][index]
        return Position(line, min(offset - start, self._width(line, start)))

    def offset(self, pos: Position) -> int:
        """The character offset of a position (clamped to its line and the text)."""
        if pos.line < 0:
            return 0
        start = self._start(pos.line)
        if start is None:
            return len(self.text)
        character = pos.character
        if character <= 0:
            return start
        return start + min(character, self._width(pos.line, start))

    def _width(self, number: int, start: int) -> int:
        """The length of line `number` (starting at `start`) without slicing it out, as
        `line` would: a big file's analysis asks for the offsets of every scenario, and a
        50 MB line is 50 MB to copy for each position the server converts."""
        end = self._start(number + 1)
        if end is None:
            return len(self.text) - start
        return end - start - (2 if self.text.startswith("\r\n", end - 2) else 1)

    def start(self, number: int) -> int | None:
        """The offset where line `number` starts (None: past the last line)."""
        return None if number < 0 else self._start(number)

    @property
    def end(self) -> Position:
        last = len(self) - 1
        start = self._start(last)
        return Position(last, 0 if start is None else self._width(last, start))

    def clamp(self, pos: Position) -> Position:
        """The nearest position inside the document."""
        if pos.line < 0:
            return Position(0, 0)
        start = self._start(pos.line)
        if start is None:
            return self.end
        width = self._width(pos.line, start)
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

    def cut(self, start_line: int, start_character: int, end_line: int, end_character: int) -> str:
        """The text from one position to another, for positions known to be in the text
        (a node's, as read): not clamped to their lines, so cheaper than `slice`."""
        if self._next is not None:
            self._reach(end_line)
        firsts, chunks = self._firsts, self._chunks
        first = bisect_right(firsts, start_line) - 1
        last = first
        if end_line - firsts[first] >= len(chunks[first]):  # not the same chunk
            last = bisect_right(firsts, end_line) - 1
        start_index, end_index = start_line - firsts[first], end_line - firsts[last]
        if start_line < 0 or end_index >= len(chunks[last]):  # not lines of the text
            return self.slice(Range.of(start_line, start_character, end_line, end_character))
        start = self._bases[first] + chunks[first][start_index] + start_character
        return self.text[start : self._bases[last] + chunks[last][end_index] + end_character]

    def slice(self, rng: Range) -> str:
        """The text a range covers."""
        return self.text[self.offset(rng.start) : self.offset(rng.end)]

    # -- edits -----------------------------------------------------------------------------

    def edited(self, text: str, start: int, old_end: int, new_end: int) -> LineIndex:
        """The index of `text`: this index's text with [start, old_end) now [start, new_end).

        Only the chunks around the edit are rescanned (one line more on each side, for a
        `\r` and `\n` that an edit joins or splits); the rest are shared with this index.
        """
        self._complete()
        delta = new_end - old_end
        old_length = len(self.text)
        bases = self._bases
        first = max(0, bisect_right(bases, max(0, start - 1)) - 1)
        last = bisect_right(bases, min(old_end + 1, old_length)) - 1
        rebuilt_from = bases[first]
        if last + 1 < len(bases):
            rebuilt_to = bases[last + 1] + delta  # a line start in both texts
            finds = (m.end() for m in _BREAK.finditer(text, rebuilt_from, rebuilt_to))
            starts = [rebuilt_from, *(end for end in finds if end < rebuilt_to)]
        else:
            starts = [rebuilt_from, *(m.end() for m in _BREAK.finditer(text, rebuilt_from))]
        new = LineIndex(text)
        new._next = None
        old_lines = (self._firsts[last + 1] if last + 1 < len(bases) else len(self)) - self._firsts[
            first
        ]
        line_delta = len(starts) - old_lines
        chunks = self._chunks[:first]
        new_bases = bases[:first]
        firsts = self._firsts[:first]
        number = self._firsts[first]
        for at in range(0, len(starts), _CHUNK):
            part = starts[at : at + _CHUNK]
            base = part[0]
            chunks.append(array("q", map(base.__rsub__, part)))
            new_bases.append(base)
            firsts.append(number)
            number += len(part)
        chunks.extend(self._chunks[last + 1 :])
        new_bases.extend(map(delta.__add__, bases[last + 1 :]))
        firsts.extend(map(line_delta.__add__, self._firsts[last + 1 :]))
        new._chunks, new._bases, new._firsts = chunks, new_bases, firsts
        return new


# Line starts per chunk of a LineIndex: small enough that an edit rescans little, large
# enough that the per-chunk lists stay short (a 250,000-line file has 1,000 chunks).
_CHUNK = 256
_WINDOW = 16_384  # characters first split for a chunk's lines (doubled until enough)


def _line_feed_ends(text: str, base: int) -> list[int] | None:
    """The ends of the next `_CHUNK` breaks after `base`, relative to it, when they are all
    line feeds; None when a CR is among them (the caller's pattern handles those).

    Splitting a window of the text finds them ~3x faster than a match object per line.
    """
    width = _WINDOW
    while True:
        window = text[base : base + width]
        if "\r" in window:
            return None
        parts = window.split("\n", _CHUNK)
        if len(parts) > _CHUNK or base + width >= len(text):
            break
        width *= 2
    del parts[-1]  # what follows the last break (or the window's end)
    # Line k ends after the lengths of lines 0..k and their k + 1 line feeds (all in C).
    return list(map(add, accumulate(map(len, parts)), range(1, len(parts) + 1)))


class LinesView(Sequence[str]):
    """Lines of a text as a read-only sequence, read through its LineIndex on demand.

    A slice is another view (nothing is copied), so reading the few lines after a cursor
    in a huge document costs those few lines.
    """

    def __init__(self, index: LineIndex, start: int = 0, stop: int | None = None) -> None:
        self._index, self._start, self._stop = index, start, stop

    def __len__(self) -> int:
        stop = len(self._index) if self._stop is None else self._stop
        return max(0, stop - self._start)

    def __getitem__(self, item):
        if isinstance(item, slice):
            if item.step not in (None, 1):
                return [self[i] for i in range(*item.indices(len(self)))]
            start, stop, _ = item.indices(len(self))
            return LinesView(self._index, self._start + start, self._start + max(start, stop))
        if item < 0:
            item += len(self)
        if not 0 <= item < len(self):
            raise IndexError(item)
        return self._index.line(self._start + item)

    def __iter__(self) -> Iterator[str]:
        number, index = self._start, self._index
        while self._stop is None or number < self._stop:
            if index._start(number) is None:
                return
            yield index.line(number)
            number += 1


# The indexes alive, by the id of their text. Weak: an index (and its text, maybe 20 MB)
# lives only as long as someone who matters holds it, e.g. an open document.
_KNOWN: WeakValueDictionary[int, LineIndex] = WeakValueDictionary()


def index_of(text: str) -> LineIndex:
    """A LineIndex of `text`, shared by everyone who asks about the same text object.

    The language server keeps an index up to date for each open document (`remember`), so
    converting a position or reading a line of a huge document costs no scan of it,
    whichever module asks.
    """
    index = _KNOWN.get(id(text))
    if index is not None and index.text is text:
        return index
    return remember(LineIndex(text))


def remember(index: LineIndex) -> LineIndex:
    _KNOWN[id(index.text)] = index
    return index
