"""A line reader for the plain block YAML most spec files are written in.

libyaml parses fast, but PyYAML hands every event to Python as objects (an event and
two marks each): for a big suite that was a third of opening it. Most spec files use a
part of YAML: block mappings and lists; plain, quoted and block scalars; one-line flow
collections; comments. This reader reads that part line by line, the shape of each
distinct line worked out once (a one-line flow collection is handed to libyaml alone,
in place), and makes the very nodes, problems and positions the libyaml reader makes
(tests/engine/spec/test_block_reader.py compares the two over generated and real files).

Anything else (anchors, aliases, tags outside flow collections, merge keys, `- - a`,
multi-line flow collections or keys, indentation indicators, tabs, CR line ends,
directives, document markers, limits reached, any error) raises `Unsupported`, and the
caller reads the text with libyaml: it alone says what is wrong, and where.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from .event_reader import Builder, surely_too_many, too_many_message
from .problems import Range
from .tree import Node, Shift

__all__ = ["Unsupported", "read_block"]

_alloc = object.__new__  # nodes are made field by field, as the libyaml reader makes them


class Unsupported(Exception):
    """The text uses YAML this reader leaves to libyaml."""


# Characters this reader leaves to libyaml: tabs, CR, controls (U+0085 among them), the
# YAML 1.1 breaks U+2028/9, surrogates, the BOM, U+FFFE/U+FFFF; it takes line feed and
# what libyaml prints as is. Written as the few characters excluded, not the many taken:
# a negated class over all of Unicode costs 20 ms to compile at every start.
FOREIGN = "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
# Those of them in ASCII. A class with characters past U+00FF compiles to a table of all
# of Unicode (~4 M instructions each time), so the full class is compiled only for the
# first line that is not ASCII; an ASCII line (`str.isascii` is a flag: no scan) is
# searched with this one, a bitmap.
FOREIGN_ASCII = "[\x00-\x09\x0b-\x1f\x7f]"
# Lines that are document markers or directives.
_MARKERS = re.compile(r"^(?:(?:---|\.\.\.)(?:[ ]|$)|%)", re.MULTILINE)
# Either, in one line (each distinct line is searched once, not the whole text).
_UNREAD_ASCII = re.compile(f"{FOREIGN_ASCII}|{_MARKERS.pattern}")
# Where a one-line plain scalar ends: a `:` before a blank or the end, or a ` #` comment.
_PLAIN_END = re.compile(r":(?: |$)| #")
_SINGLE = re.compile(r"'((?:[^']|'')*)'")
_DOUBLE = re.compile(r'"((?:[^"\\]|\\.)*)"')
# YAML's escapes in double quotes (libyaml's list), and those with hex digits.
_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
    "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
    "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
}  # fmt: skip
_HEX_ESCAPE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))")
# A single-quoted scalar's text up to its closing quote (a `''` is a quote inside it).
_SINGLE_CLOSE = re.compile(r"(?:[^']|'')*'(?!')")
_DOUBLE_CLOSE = re.compile(r'[^"]*"')  # (escapes, which libyaml reads, are checked first)
# Characters that cannot start a plain scalar (`-`, `?` and `:` can, before a non-blank).
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_SIMPLE_KEY_MAX = 1000  # libyaml gives up on a simple key longer than 1024 characters
# Line shapes kept before the reader asks that lines repeat (three in four lines read seen
# before): a file of distinct lines would otherwise hold a second copy of itself.
_SHAPES_KEPT = 10_000

# A scalar on a line: (text, plain?, start column, end column, a ` #` comment follows it?,
# it may go on below?). A quoted one open at the line's end has its quote as text.
Scalar = tuple[str, bool, int, int, bool, bool]
_QUOTED = -1  # the end column of a quoted scalar that goes on below
_BLOCK = -2  # the end column of a block scalar's header (`|`, `>`): it is read below
_FLOW = -3  # the end column of a flow collection's start (`[`, `{`)
# Line shapes (see _shape): the column of the first character, a code, then its parts.
_DASH, _DASH_SCALAR, _DASH_KEY, _KEY, _SCALAR = range(5)


@cache
def foreign() -> re.Pattern[str]:
    """The characters left to libyaml, any line's (see FOREIGN)."""
    return re.compile(FOREIGN)


@cache
def _unread_any() -> re.Pattern[str]:
    return re.compile(f"{FOREIGN}|{_MARKERS.pattern}")


def _left_to_libyaml(line: str) -> bool:
    """Whether the line holds a FOREIGN character, a document marker or a directive."""
    return (_UNREAD_ASCII if line.isascii() else _unread_any()).search(line) is not None


def _scalar(line: str, at: int, key: bool) -> tuple[Scalar, int]:
    """The scalar starting at `at`, and where the line goes on after it (a key: past `:`).

    For a key the `:` must follow; for a value only blanks or a comment may.
    """
    first = line[at]
    if first == "'" or first == '"':
        m = (_SINGLE if first == "'" else _DOUBLE).match(line, at)
        if m is None:
            if key or (first == '"' and "\\" in line):  # a key on several lines, escapes
                raise Unsupported
            return (first, False, at, _QUOTED, False, True), len(line)
        raw = m.group(1)
        if first == "'":
            raw = raw.replace("''", "'")
        elif "\\" in raw:
            raw = _HEX_ESCAPE.sub(_unescape, raw)
        end = m.end()
        rest = line[end:]
        after = rest.lstrip(" ")
        if key:
            if after[:1] != ":" or after[1:2] not in ("", " "):
                raise Unsupported
            colon = end + len(rest) - len(after)
            if colon - at > _SIMPLE_KEY_MAX:
                raise Unsupported
            return (raw, False, at, end, False, False), colon + 1
        if after and (after[0] != "#" or after is rest):  # text after it, or `'a'#`
            raise Unsupported
        return (raw, False, at, end, False, False), len(line)
    if (first == "|" or first == ">") and not key:  # a block scalar: read on below
        return (first, False, at, _BLOCK, False, True), len(line)
    if (first == "[" or first == "{") and not key:  # a flow collection: libyaml reads it
        return (first, False, at, _FLOW, False, True), len(line)
    if first in _INDICATORS and (first not in "-?:" or at + 1 >= len(line) or line[at + 1] == " "):
        raise Unsupported  # anchor, alias, tag, complex key, directive...
    m = _PLAIN_END.search(line, at)
    stop = len(line) if m is None else m.start()
    raw = line[at:stop].rstrip(" ")
    end = at + len(raw)
    if key:
        if m is None or m.group()[0] != ":" or not raw:
            raise Unsupported
        if stop - at > _SIMPLE_KEY_MAX:
            raise Unsupported
        return (raw, True, at, end, False, False), stop + 1
    if m is not None and m.group()[0] == ":":  # `a: b: c`: libyaml's error to report
        raise Unsupported
    return (raw, True, at, end, line[end : end + 2] == " #", m is None), len(line)


def _unescape(m: re.Match[str]) -> str:
    hexa = m.group(1) or m.group(2) or m.group(3)
    if hexa is None:
        char = _ESCAPES.get(m.group(4))
        if char is None:
            raise Unsupported  # not an escape: libyaml's error to report
        return char
    code = int(hexa, 16)
    if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        raise Unsupported  # libyaml refuses these
    return chr(code)


def _content(line: str, at: int) -> tuple[Any, ...]:
    """A key with its value (or none), or a lone scalar, from column `at` on."""
    first = line[at]
    if first == "'" or first == '"':
        m = (_SINGLE if first == "'" else _DOUBLE).match(line, at)
        is_key = m is not None and line[m.end() :].lstrip(" ")[:1] == ":"
    elif first == "[" or first == "{":
        is_key = False  # (a flow collection as a key is libyaml's to read: see `flow`)
    else:
        m = _PLAIN_END.search(line, at)
        is_key = m is not None and m.group()[0] == ":"
    if not is_key:
        value, _ = _scalar(line, at, key=False)
        return (_SCALAR, value)
    key, after = _scalar(line, at, key=True)
    start = after
    while start < len(line) and line[start] == " ":
        start += 1
    if start >= len(line) or line[start] == "#":  # the value is on the lines below
        return (_KEY, at, key, None, after)
    value, _ = _scalar(line, start, key=False)
    return (_KEY, at, key, value, after)


def _shape(line: str) -> tuple[Any, ...] | None:
    """What a line holds, apart from where it is: None for a blank or comment line."""
    if _left_to_libyaml(line):
        raise Unsupported
    body = line.lstrip(" ")
    if not body or body[0] == "#":
        return None
    col = len(line) - len(body)
    if body[0] == "-" and body[1:2] in ("", " "):
        at = col + 1
        while at < len(line) and line[at] == " ":
            at += 1
        if at >= len(line) or line[at] == "#":
            return (col, _DASH)
        if line[at] == "-" and line[at + 1 : at + 2] in ("", " "):
            raise Unsupported  # `- - a`: a list in a list on one line
        inner = _content(line, at)
        if inner[0] == _KEY:
            return (col, _DASH_KEY, *inner[1:])
        return (col, _DASH_SCALAR, inner[1])
    return (col, *_content(line, col))


def _check_lines(lines: list[str], start: int, stop: int) -> None:
    """Lines read as part of a scalar (not through `_shape`) hold nothing libyaml's."""
    for number in range(start, stop):
        if _left_to_libyaml(lines[number]):
            raise Unsupported


def _fold(pieces: list[str], blanks: list[int]) -> str:
    """Lines of a scalar joined as YAML folds them: a space, or a line feed per blank line."""
    out = [pieces[0]]
    for piece, blank in zip(pieces[1:], blanks, strict=True):
        out.append("\n" * blank if blank else " ")
        out.append(piece)
    return "".join(out)


def _plain_below(lines: list[str], number: int, first: str, indent: int) -> tuple[Any, ...] | None:
    """A plain scalar going on below line `number`: (text, last line, end column, a ` #`
    comment follows?), or None when the next line is not part of it.

    Lines more indented than the collection holding the scalar go on with it (libyaml's
    rule), up to a comment; blank lines between them fold to line feeds.
    """
    pad = " " * (indent + 1)
    pieces, blanks = [first], []
    blank = 0
    last = number
    end = 0
    commented = False
    for j in range(number + 1, len(lines)):
        text = lines[j]
        body = text.lstrip(" ")
        if not body:
            blank += 1
            continue
        if not text.startswith(pad) or body[0] == "#":
            break
        col = len(text) - len(body)
        m = _PLAIN_END.search(text, col)
        if m is not None and m.group()[0] == ":":
            raise Unsupported  # `a: b` below a plain scalar: libyaml's error to report
        stop = len(text) if m is None else m.start()
        piece = text[col:stop].rstrip(" ")
        pieces.append(piece)
        blanks.append(blank)
        blank = 0
        last, end = j, col + len(piece)
        if m is not None:  # a comment ends it
            commented = text[end : end + 2] == " #"
            break
    if last == number:
        return None
    return _fold(pieces, blanks), last, end, commented


def _block_below(
    header: str, lines: list[str], number: int, at: int, parent: int
) -> tuple[str, int, int, int]:
    """A block scalar whose header (`|`, `>`, with a chomping indicator) is at (`number`,
    `at`) in a collection at column `parent`: (text, end line, end column, first line
    after it). libyaml's rules, line by line: its indentation is the first non-blank
    line's (blank lines before it count), the scalar ends at a line less indented, and
    its end is the start of the line after its last line break."""
    folded = header[at] == ">"
    keep: bool | None = None  # chomping: None clips, False strips, True keeps
    rest = header[at + 1 :]
    if rest[:1] in ("+", "-"):
        keep = rest[0] == "+"
        rest = rest[1:]
    body = rest.lstrip(" ")
    if body and body[0] != "#":  # an indentation indicator, or text: libyaml's to read
        raise Unsupported
    last_line = len(lines) - 2  # (the reader added an empty line after the text's last)
    if number >= last_line:
        raise Unsupported  # the text ends on the header
    # Indentation: the most spaces on the blank lines before the first content line.
    j = number + 1
    end = (j, 0)
    breaks = 0
    widest = 0
    while True:
        line = lines[j]
        spaces = len(line) - len(line.lstrip(" "))
        widest = max(widest, spaces)
        if spaces < len(line) or j == last_line:
            break
        breaks += 1
        j += 1
        end = (j, 0)
    indent = max(parent + 1, 1, widest)
    chunks: list[str] = []
    line_break = ""
    line = lines[j]
    while len(line) > indent and len(line) - len(line.lstrip(" ")) >= indent:
        chunks.append("\n" * breaks)
        leading_blank = line[indent] == " "
        chunks.append(line[indent:])
        if j == last_line:  # the text ends without a line break
            line_break, breaks, end = "", 0, (j, len(line))
            j += 1
            break
        line_break = "\n"
        # The blank lines after it: as many line breaks (up to `indent` spaces each).
        j += 1
        end = (j, 0)
        breaks = 0
        line = lines[j]
        while len(line) <= indent and not line.strip(" ") and j < last_line:
            breaks += 1
            j += 1
            end = (j, 0)
            line = lines[j]
        if len(line) > indent and len(line) - len(line.lstrip(" ")) >= indent:
            if folded and not leading_blank and line[indent] != " ":
                if not breaks:
                    chunks.append(" ")
            else:
                chunks.append(line_break)
        else:
            break
    if keep is not False:
        chunks.append(line_break)
    if keep:
        chunks.append("\n" * breaks)
    return "".join(chunks), end[0], end[1], j


def _quoted_below(first: str, lines: list[str], number: int, at: int) -> tuple[str, int, int]:
    """A quoted scalar opened at (`number`, `at`) and closed below: (text, last line,
    end column)."""
    quote = first[at]
    single = quote == "'"
    pieces = [first[at + 1 :].rstrip(" ")]
    blanks: list[int] = []
    blank = 0
    for j in range(number + 1, len(lines)):
        body = lines[j].lstrip(" ")
        if single:
            m = _SINGLE_CLOSE.match(body)
        else:
            close = body.find('"')
            if "\\" in (body if close < 0 else body[:close]):
                raise Unsupported  # escapes: libyaml's to read
            m = None if close < 0 else _DOUBLE_CLOSE.match(body)
        if m is None:  # the scalar goes on
            if not body:
                blank += 1
                continue
            pieces.append(body.rstrip(" "))
            blanks.append(blank)
            blank = 0
            continue
        pieces.append(body[: m.end() - 1])
        blanks.append(blank)
        after = body[m.end() :]
        rest = after.lstrip(" ")
        if rest and (rest[0] != "#" or rest is after):
            raise Unsupported
        if single:
            pieces = [piece.replace("''", "'") for piece in pieces]
        end = len(lines[j]) - len(body) + m.end()
        return _fold(pieces, blanks), j, end
    raise Unsupported  # never closed: libyaml's error to report


class _Open:
    """A block mapping or list being read."""

    __slots__ = ("cell", "col", "flat", "items", "key", "kind", "sc", "sl", "value")

    def __init__(self, kind: str, col: int, sl: int, cell: Any) -> None:
        self.kind = kind
        self.col = col  # of its keys or dashes
        self.sl, self.sc, self.cell = sl, col, cell
        self.value: Any = {} if kind == "mapping" else []
        self.flat: list[Node] = []  # a mapping's key, value, key, value...
        self.items: list[Node] = []  # a list's items
        self.key: Node | None = None  # a mapping's key waiting for its value


class _Full(Exception):
    """The text holds more nodes than allowed: the reader stopped where libyaml's would."""


def read_block(b: Builder) -> Node | None:
    """The tree `b` would read from its text with libyaml, or `Unsupported`.

    Fills `b.problems`, `b.nodes` and `b.cut_values` as `b.run()` does; like it, gives no
    tree for a text over the node limit (the problem says where the limit was crossed).
    """
    try:
        return _read(b)
    except _Full:
        # Lines past the limit were not read: whether libyaml would take them is unknown.
        if foreign().search(b.original) is not None or _MARKERS.search(b.original) is not None:
            raise Unsupported from None
        return None


def _read(b: Builder) -> Node | None:  # one loop, its common lines inlined for speed
    text = b.original
    if b.json or b.fragment or b.restore is not None or b.bom:
        raise Unsupported
    lines = text.split("\n")
    count = len(lines)
    lines.append("")  # what follows the last line
    ints = b.line_ints
    max_nodes, max_depth, entry_depth = b.max_nodes, b.max_depth, b.entry_depth
    root_cell, problems, cut_values = b.cell, b.problems, b.cut_values
    plain_cache, resolve = b.plain_cache, b._plain
    shapes: dict[str, tuple[Any, ...] | None] = {}
    keep = True  # whether new shapes are kept
    alloc, node_class, builder_class = _alloc, Node, Builder
    dash_scalar, dash_key, lone = _DASH_SCALAR, _DASH_KEY, _SCALAR  # (locals: the loop's)
    stack: list[_Open] = []
    nodes = 0
    first_node = first_problem = 0  # where the current top-level entry began
    # A collection waiting for a value given on the lines below (`key:` or `-` ending a
    # line), and where libyaml puts the empty value if none comes.
    waiting: _Open | None = None
    empty_line = empty_col = 0
    skip_to = 0  # lines before this one were read as part of a scalar
    root: Node | None = None

    def cell_of_new() -> Any:
        """The Shift of a node made now (a top-level entry gets one of its own)."""
        nonlocal first_node, first_problem
        if len(stack) == entry_depth:
            first_node, first_problem = nodes, len(problems)
            return Shift()
        return stack[-1].cell if stack else root_cell

    def scalar(raw: str, plain: bool, line: int, sc: int, last: int, ec: int) -> Node:
        nonlocal nodes
        cell = cell_of_new()
        nodes += 1
        sl, el = ints[line], ints[last]
        if nodes > max_nodes:
            too_many(sl, sc)
        if plain:
            _tag, value, merge = resolve(raw, sl, sc, el, ec)
            if merge:
                raise Unsupported  # `<<`: merges are read by libyaml
        else:
            value = raw
        node = alloc(node_class)
        node.kind = "scalar"
        node.value = value
        node._flat = ()
        node.items = ()
        node._sl = sl
        node._sc = sc
        node._el = el
        node._ec = ec
        node._cell = cell
        node._merged = 0
        node._index = None
        return node

    def value_of(s: Scalar, line: int, text_line: str) -> tuple[Node, bool]:
        """A value's node, read on from line `line` when it goes on below; and whether a
        ` #` comment follows it."""
        nonlocal skip_to
        raw, plain, sc, ec, commented, open_end = s
        if open_end:
            if plain:
                indent = stack[-1].col
                following = lines[line + 1]
                if len(following) <= indent or following[indent] == " ":
                    below = _plain_below(lines, line, raw, indent)
                    if below is not None:
                        raw, last, ec, commented = below
                        skip_to = last + 1
                        _check_lines(lines, line + 1, skip_to)
                        return scalar(raw, True, line, sc, last, ec), commented
            elif ec == _FLOW:
                return flow(text_line, line, sc), False
            elif ec == _BLOCK:
                raw, last, ec, skip_to = _block_below(text_line, lines, line, sc, stack[-1].col)
                _check_lines(lines, line + 1, skip_to)
                return scalar(raw, False, line, sc, last, ec), False
            else:  # _QUOTED
                raw, last, ec = _quoted_below(text_line, lines, line, sc)
                skip_to = last + 1
                _check_lines(lines, line + 1, skip_to)
                return scalar(raw, False, line, sc, last, ec), False
        return scalar(raw, plain, line, sc, line, ec), commented

    def flow(text_line: str, line: int, at: int) -> Node:
        """A flow collection ending on its line, read by libyaml alone with the same
        columns; anything else (on several lines, anchors, aliases) is left to libyaml."""
        nonlocal nodes
        cell = cell_of_new()
        # Nodes at the entries' depth start Shifts of their own, as in the whole file's read.
        below = entry_depth - len(stack)
        flow_text = " " * at + text_line[at:]
        if len(flow_text) > max_nodes - nodes and surely_too_many(flow_text, max_nodes, 0):
            raise Unsupported  # libyaml's count refuses the whole text at once
        sub = builder_class(
            flow_text,
            json=False,
            line_offset=ints[line],
            max_depth=max_depth - len(stack),
            max_nodes=max_nodes - nodes,
            cell=cell,
            entry_depth=below if below > 0 else -1,
        )
        sub.plain_cache = plain_cache  # a value read wrong is reported at its first place
        node = sub.run()
        # Over the limit, the whole file's count crosses it at the same node.
        full = node is None and sub.problems and sub.problems[-1].code == "too-many-nodes"
        crossed = sub.problems.pop().range.start if full else None
        start = (ints[line], at)
        if crossed is None and (
            node is None
            or sub.syntax_failed
            or sub.anchors
            or sub.aliased
            # `[a]: b`, `{a: 1}:`: read alone, the collection is the key of a block mapping
            # (reported at its start), which the whole file's read refuses as an error.
            or any(problem.range.start == start for problem in sub.problems)
        ):
            raise Unsupported
        nodes += sub.nodes
        problems.extend(sub.problems)
        cut_values.extend(sub.cut_values)
        if crossed is not None:
            too_many(crossed.line, crossed.character)
        assert node is not None
        return node

    def finished(node: Node) -> None:
        """A top-level entry is complete: note what it holds."""
        cell = node._cell
        cell.nodes = nodes - first_node
        if len(problems) > first_problem:
            cell.problems = tuple(problems[first_problem:])

    def put(node: Node, commented: bool = False) -> None:
        """Put a complete value into the open collection, or make it the root."""
        nonlocal root
        if not stack:
            root = node
            return
        if len(stack) == entry_depth:
            finished(node)
        parent = stack[-1]
        if parent.kind == "sequence":
            parent.items.append(node)
            parent.value.append(node.value)
            return
        key = parent.key
        assert key is not None
        parent.key = None
        k = key.value
        if k in parent.value:
            b._duplicate_key(key)
        parent.value[k] = node.value
        parent.flat.append(key)
        parent.flat.append(node)
        if commented:
            cut_values.append((key, node))

    def open_(kind: str, col: int, line: int) -> None:
        nonlocal nodes
        cell = cell_of_new()
        nodes += 1
        if nodes > max_nodes:
            too_many(ints[line], col)
        if len(stack) >= max_depth:
            raise Unsupported
        stack.append(_Open(kind, col, ints[line], cell))

    def too_many(line: int, col: int) -> None:
        """Stop where libyaml's read would: at the node past the limit, said there."""
        b._add("too-many-nodes", too_many_message(max_nodes), Range.point(line, col))
        b.nodes = nodes
        raise _Full

    def close(el: int, ec: int) -> None:
        frame = stack.pop()
        node = alloc(node_class)
        node.kind = frame.kind
        node.value = frame.value
        if frame.kind == "sequence":
            node._flat = ()
            node.items = frame.items
        else:
            node._flat = frame.flat
            node.items = ()
        node._sl = frame.sl
        node._sc = frame.sc
        node._el = el
        node._ec = ec
        node._cell = frame.cell
        node._merged = 0
        node._index = None
        put(node)

    def empty_value() -> None:
        put(scalar("", True, empty_line, empty_col, empty_line, empty_col))

    for number in range(count):
        if number < skip_to:
            continue
        text_line = lines[number]
        lines[number] = ""  # (freed as the nodes are made: a big file's peak is its nodes)
        try:
            shape = shapes[text_line]
        except KeyError:
            shape = _shape(text_line)
            if keep:
                shapes[text_line] = shape
                if len(shapes) >= _SHAPES_KEPT and len(shapes) * 4 > number:
                    keep = False  # lines do not repeat much: keep no more
        if shape is None:
            continue
        col, code = shape[0], shape[1]
        is_dash = code <= dash_key
        if not stack:  # the root: a mapping or a list
            if root is not None or code == lone:
                raise Unsupported
            open_("sequence" if is_dash else "mapping", col, number)
        else:
            if waiting is not None:
                if col > waiting.col or (
                    col == waiting.col and is_dash and waiting.kind == "mapping"
                ):  # this line gives the value (a list at a key's column is one)
                    waiting = None
                    if code == lone:
                        put(*value_of(shape[2], number, text_line))
                        continue
                    open_("sequence" if is_dash else "mapping", col, number)
                else:
                    waiting = None
                    empty_value()
            # Close what this line is left of, and an indentless list it does not go on.
            top = stack[-1]
            while top.col > col or (
                top.col == col
                and not is_dash
                and top.kind == "sequence"
                and len(stack) > 1
                and stack[-2].col == col
            ):
                close(ints[number], col)
                if not stack:
                    raise Unsupported  # left of the root
                top = stack[-1]
            if top.col != col or (top.kind == "sequence") != is_dash:
                raise Unsupported  # libyaml's to read, or to report
        if code < dash_key:
            if code == dash_scalar:
                put(value_of(shape[2], number, text_line)[0])
            else:
                waiting, empty_line, empty_col = stack[-1], number, col + 1
            continue
        if code == lone:
            raise Unsupported  # a lone scalar where a key or a dash must be
        depth = len(stack)
        if code == dash_key:
            open_("mapping", shape[2], number)
            depth += 1
        frame = stack[-1]
        # A key and its value, if on this line: the most common line, made here.
        raw, plain, sc, ec, _, _ = shape[3]
        ln = ints[number]
        if depth == entry_depth:
            first_node, first_problem = nodes, len(problems)
            cell = Shift()
        else:
            cell = frame.cell
        nodes += 1
        if nodes > max_nodes:
            too_many(ln, sc)
        if plain:
            hit = plain_cache.get(raw)
            if hit is None:
                hit = resolve(raw, ln, sc, ln, ec)
            if hit[2]:
                raise Unsupported  # `<<`: merges are read by libyaml
            k = hit[1]
        else:
            k = raw
        key = alloc(node_class)
        key.kind = "scalar"
        key.value = k
        key._flat = ()
        key.items = ()
        key._sl = ln
        key._sc = sc
        key._el = ln
        key._ec = ec
        key._cell = cell
        key._merged = 0
        key._index = None
        if depth == entry_depth:
            finished(key)
        value = shape[4]
        if value is None:
            frame.key = key
            waiting, empty_line, empty_col = frame, number, shape[5]
            continue
        raw, plain, sc, ec, commented, open_end = value
        if open_end:  # it may go on below: when the next line is right of the key's
            following = lines[number + 1]
            indent = frame.col
            if not plain or len(following) <= indent or following[indent] == " ":
                frame.key = key
                put(*value_of(value, number, text_line))
                continue
        if depth == entry_depth:
            first_node, first_problem = nodes, len(problems)
            cell = Shift()
        nodes += 1
        if nodes > max_nodes:
            too_many(ln, sc)
        if plain:
            hit = plain_cache.get(raw)
            if hit is None:
                hit = resolve(raw, ln, sc, ln, ec)
            v = hit[1]
        else:
            v = raw
        node = alloc(node_class)
        node.kind = "scalar"
        node.value = v
        node._flat = ()
        node.items = ()
        node._sl = ln
        node._sc = sc
        node._el = ln
        node._ec = ec
        node._cell = cell
        node._merged = 0
        node._index = None
        if depth == entry_depth:
            finished(node)
        mapping = frame.value
        if k in mapping:
            b._duplicate_key(key)
        mapping[k] = v
        flat = frame.flat
        flat.append(key)
        flat.append(node)
        if commented:
            cut_values.append((key, node))

    if not stack:  # blank lines and comments only
        return None
    # The end of the text closes all: libyaml's mark is the start of the line after the
    # last one, which the libyaml reader clamps to the text's end.
    end_line = text.count("\n") + (0 if text.endswith("\n") else 1) + b.line_offset
    if end_line > b.last_line:
        end = b._end()
        el, ec = end.line, end.character
    else:
        el, ec = ints[end_line - b.line_offset], 0
    if waiting is not None:
        empty_value()
    while stack:
        close(el, ec)
    b.nodes = nodes
    return root
