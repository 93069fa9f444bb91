"""Where a cursor is in a spec file's structure, even while the text is half typed.

A line being typed is rarely the YAML it will become (`    keyw` continues the value
above it; `kind:` has no value yet), so for YAML the structure around the cursor is read
from indentation, line by line, the way a person reads it: `- ` opens a list item, `key:`
a mapping entry, deeper lines belong to the last key. Only the cursor's own line is read
as "being typed". JSON, and YAML in flow style (`{kind: ...}`), use the parsed tree.
"""

from __future__ import annotations

import enum
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from checkspec.engine.spec.lines import LinesView, index_of
from checkspec.engine.spec.problems import Position, Range
from checkspec.engine.spec.tree import Key, Node, Source

from .schema import Frame


class Role(enum.Enum):
    KEY = "key"  # typing a key of the mapping the frames end at
    VALUE = "value"  # typing the value of `key`


@dataclass(frozen=True)
class CursorContext:
    frames: tuple[Frame, ...]  # root .. the mapping (or, for a list item, the list) around it
    role: Role
    key: Key | None = None  # VALUE: whose value; for a list item, the list's key
    in_list: bool = False  # VALUE: an item of a list (the frames end at the list)
    after_dash: bool = False  # KEY: the word follows `- `, so it may be a scalar list item
    prefix: str = ""  # what is typed so far, without quotes
    replace: Range = field(default_factory=lambda: Range.point(0, 0))  # what an item replaces
    colon_follows: bool = False  # KEY: a ':' already follows the word
    needs_space: bool = False  # nothing yet separates the text from its `:` or `-`
    quoted: bool = False
    line: str = ""  # the cursor's line, for features that narrow `replace`
    position: Position = field(default_factory=lambda: Position(0, 0))

    @property
    def path(self) -> list[Key]:
        """Keys and indexes from the root to the innermost frame."""
        return [f.step for f in self.frames[1:] if f.step is not None]


def cursor_context(
    text: str, position: Position, *, source: Source | None = None, json: bool = False
) -> CursorContext | None:
    """The structural place of `position`, or None where nothing can be completed."""
    lines = LinesView(index_of(text))  # no copy of a huge text's lines per keystroke
    if position.line >= len(lines):
        return None
    line = lines[position.line]
    position = Position(position.line, min(position.character, len(line)))
    if not json:
        found = _yaml_context(lines, position, _resume_point(source, lines, position))
        if found is not _USE_TREE:
            return found  # type: ignore[return-value]
    return _tree_context(source, line, position) if source is not None else None


# YAML, read by indentation ----------------------------------------------------------------

_USE_TREE = object()  # the line is in flow style: the parsed tree knows better

_TYPING_KEY = re.compile(r"(?P<quote>['\"]?)(?P<word>(?:[\w$.][\w$.\-]*)?)")
_COLON = re.compile(r":(?=[ \t]|$)")
_COLON_AFTER_QUOTE = re.compile(r"[ \t]*:(?=[ \t]|$)")
_COMMENT_START = re.compile(r"(?:^|[ \t])#")
_NOT_KEY_START = frozenset("#[]{},&*!|>%@`")
_BLOCK_SCALAR = re.compile(r"[|>][-+0-9]*")
_TOKEN_END = re.compile(r"""[^\s,\]}'"#]*""")
_DASH = re.compile(r"-(?=[ \t]|$)[ \t]*")
_WORD_TAIL = re.compile(r"[\w$.\-]*")


@dataclass(eq=False)  # compared by identity: two blocks may hold the same keys
class _Block:
    """An open mapping or list while the lines above the cursor are read."""

    col: int
    seq: bool
    step: Key | None
    keys: dict[str, str] = field(default_factory=dict)
    last_key: str | None = None
    count: int = 0


class _Outline:
    """The stack of open blocks, fed one line at a time."""

    def __init__(self) -> None:
        self.stack: list[_Block] = []
        self.block_scalar_above: int | None = None  # lines deeper than this are text

    def feed(self, line: str) -> None:
        indent = len(line) - len(line.lstrip(" "))
        if self.in_block_scalar(line, indent):
            return
        body = line[indent:]
        if not body or body.startswith("#") or line.startswith(("---", "...", "%")):
            return
        dashes, col = _dashes(line, indent)
        key = _key_at(line, col)
        if not dashes and key is None:
            return  # a continued scalar: not structure
        for dash in dashes:
            self.dash(dash)
        value = line[key.end :] if key else line[col:]
        if key is not None:
            self.key(col, key.key, _scalar(value))
        if _BLOCK_SCALAR.fullmatch(_scalar(value)):
            self.block_scalar_above = col if key else dashes[-1]

    def in_block_scalar(self, line: str, indent: int) -> bool:
        if self.block_scalar_above is None:
            return False
        if not line.strip() or indent > self.block_scalar_above:
            return True
        self.block_scalar_above = None
        return False

    @property
    def top(self) -> _Block | None:
        return self.stack[-1] if self.stack else None

    def dash(self, col: int) -> None:
        self._close(col, dash=True)
        top = self.top
        if top is not None and top.seq and top.col == col:
            top.count += 1
        else:
            self.stack.append(_Block(col, True, self._child_step(), count=1))

    def key(self, col: int, key: str | None, value: str) -> _Block:
        self._close(col, dash=False)
        top = self.top
        if top is None or top.seq or top.col != col:
            top = _Block(col, False, self._child_step())
            self.stack.append(top)
        if key is not None:
            top.keys[key] = value
            top.last_key = key
        return top

    def _close(self, col: int, *, dash: bool) -> None:
        # A list may sit at its key's column (`checks:\n- kind: x`); a key there ends it.
        while self.stack and (
            self.stack[-1].col > col
            or (self.stack[-1].col == col and self.stack[-1].seq and not dash)
        ):
            self.stack.pop()

    def _child_step(self) -> Key | None:
        parent = self.top
        if parent is None:
            return None
        return parent.count - 1 if parent.seq else parent.last_key


def _yaml_context(
    lines: Sequence[str], pos: Position, resume: tuple[int, _Outline] | None
) -> CursorContext | object | None:
    first, outline = resume if resume is not None else (0, _Outline())
    for line in lines[first : pos.line]:
        outline.feed(line)
    line = lines[pos.line]
    before = line[: pos.character]
    indent = len(before) - len(before.lstrip(" "))
    if outline.in_block_scalar(line, len(line) - len(line.lstrip(" "))):
        return None
    if before.startswith("#", indent):  # a comment line: nothing to complete
        return None
    dashes, col = _dashes(before, indent)
    typed_key = _key_at(before, col)
    typing_key = _TYPING_KEY.fullmatch(before, col) if typed_key is None else None
    if typed_key is None and typing_key is None:
        return _USE_TREE
    for dash in dashes:
        outline.dash(dash)
    rest = line[pos.character :]
    if typing_key is not None:
        word_col = typing_key.start("quote")
        container = outline.key(word_col, None, "")
        end = pos.character + len(_WORD_TAIL.match(rest).group())  # type: ignore[union-attr]
        context = CursorContext(
            frames=(),
            role=Role.KEY,
            after_dash=bool(dashes),
            prefix=typing_key.group("word"),
            replace=Range(Position(pos.line, word_col), Position(pos.line, end)),
            colon_follows=line[end:].lstrip().startswith(":"),
            needs_space=bool(dashes) and before[word_col - 1 : word_col] == "-",
            quoted=bool(typing_key.group("quote")),
        )
    else:
        assert typed_key is not None
        spaces = len(before[typed_key.end :]) - len(before[typed_key.end :].lstrip(" \t"))
        value_col = typed_key.end + spaces
        container = outline.key(col, typed_key.key, _scalar(line[value_col:]))
        value = before[value_col:]
        if value.startswith("{"):
            return _USE_TREE
        context = _value_context(typed_key.key, value, value_col, rest, pos)
        context = _with(context, needs_space=spaces == 0)
    snapshot = list(outline.stack)
    # Keys written after the cursor count too (a `kind:` below the line being typed).
    for later in lines[pos.line + 1 :]:
        outline.feed(later)
        if container not in outline.stack:
            break
    frames = tuple(Frame(b.step, None if b.seq else dict(b.keys)) for b in snapshot)
    if context.in_list:
        frames = (*frames, Frame(context.key, None))
    return _with(context, frames=frames, line=line, position=pos)


def _resume_point(
    source: Source | None, lines: Sequence[str], pos: Position
) -> tuple[int, _Outline] | None:
    """Where to start reading in a long list of scenarios: the one holding the cursor.

    Reading every line above the cursor costs a few microseconds each, a fifth of a second
    per keystroke at the end of a 60k-line suite. The parsed tree says where each scenario
    starts; the outline above it is rebuilt from the tree. The tree may be a keystroke
    old, so its claim is checked against the text (a `- ` must start that line).
    """
    root = source.root if source is not None else None
    if root is None or root.kind != "mapping":
        return None
    scenarios = root.get("scenarios")
    if scenarios is None or scenarios.kind != "sequence" or len(scenarios.items) < 2:
        return None
    index = bisect_right(scenarios.items, pos.line, key=lambda item: item.line) - 1
    if index < 1:
        return None
    start = scenarios.items[index].range.start
    text = lines[start.line] if start.line < len(lines) else ""
    dash = text.rfind("-", 0, start.character)
    if dash < 0 or text[dash + 1 : dash + 2] not in (" ", "\t") or text[:dash].strip():
        return None
    keys = {k: v if isinstance(v, str) else "" for k, v in root.value.items() if isinstance(k, str)}
    outline = _Outline()
    outline.stack = [
        _Block(root.range.start.character, False, None, keys=keys, last_key="scenarios"),
        _Block(dash, True, "scenarios", count=index),
    ]
    return start.line, outline


def _value_context(key: str, value: str, value_col: int, rest: str, pos: Position) -> CursorContext:
    in_list = value.startswith("[")
    start = 0
    if in_list:  # a flow list: the item being typed starts after the last `[` or `,`
        start = max(value.rfind("["), value.rfind(",")) + 1
        start += len(value[start:]) - len(value[start:].lstrip())
    quoted = value[start : start + 1] in ("'", '"')
    if quoted:
        start += 1
    token_end = pos.character + len(_TOKEN_END.match(rest).group())  # type: ignore[union-attr]
    return CursorContext(
        frames=(),
        role=Role.VALUE,
        key=key,
        in_list=in_list,
        prefix=value[start:],
        replace=Range(Position(pos.line, value_col + start), Position(pos.line, token_end)),
        quoted=quoted,
    )


def _dashes(line: str, col: int) -> tuple[list[int], int]:
    """Columns of the `- ` markers from `col`, and the column of what follows them."""
    columns = []
    while (m := _DASH.match(line, col)) is not None:
        columns.append(col)
        col = m.end()
    return columns, col


@dataclass(frozen=True)
class _KeyMatch:
    key: str  # unquoted
    end: int  # just after the ':'


def _key_at(line: str, col: int) -> _KeyMatch | None:
    """A `key:` starting at `col` (plain or quoted), found without backtracking regexes."""
    first = line[col : col + 1]
    if not first or first in _NOT_KEY_START or first.isspace():
        return None
    if first in ("'", '"'):
        close = _closing_quote(line, col)
        colon = _COLON_AFTER_QUOTE.match(line, close + 1) if close is not None else None
        if close is None or colon is None:
            return None
        return _KeyMatch(_unquote(line[col : close + 1]), colon.end())
    colon = _COLON.search(line, col)
    if colon is None or _COMMENT_START.search(line, col, colon.start()):
        return None
    return _KeyMatch(line[col : colon.start()].rstrip(), colon.end())


def _closing_quote(line: str, col: int) -> int | None:
    quote = line[col]
    i = col + 1
    while i < len(line):
        ch = line[i]
        if quote == '"' and ch == "\\":
            i += 2
            continue
        if ch == quote:
            if quote == "'" and line[i + 1 : i + 2] == "'":  # '' is an escaped quote
                i += 2
                continue
            return i
        i += 1
    return None


def _scalar(value: str) -> str:
    """A plain or quoted scalar's text, without a trailing comment."""
    comment = _COMMENT_START.search(value)
    if comment is not None:
        value = value[: comment.start()]
    return _unquote(value.strip())


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in ("'", '"'):
        inner = text[1:-1]
        return inner.replace("''", "'") if text[0] == "'" else inner
    return text


def _with(context: CursorContext, **changes: Any) -> CursorContext:
    return replace(context, **changes)


# The parsed tree: JSON and flow-style YAML ------------------------------------------------


def _tree_context(source: Source, line: str, pos: Position) -> CursorContext | None:
    root = source.root
    if root is None:
        return None
    path = source.path_at(pos.line, pos.character)
    node = source.node_at(pos.line, pos.character)
    if node is None:
        return None
    frames = frames_along(root, path[:-1]) if path else (Frame(None, _keys(root)),)
    if not path or (node.kind == "mapping" and root.find(path) is node):
        # Between the entries of a mapping (`{|}`): a new key goes here.
        if node.kind != "mapping":
            return None
        if path:
            frames = (*frames, Frame(path[-1], _keys(node)))
        empty = Range(pos, pos)
        return CursorContext(frames, Role.KEY, replace=empty, line=line, position=pos)
    parent = root.find(path[:-1])
    if parent is None or node.kind != "scalar":
        return None
    prefix, span, quoted = _typed(node, line, pos)

    def typed(context: CursorContext) -> CursorContext:
        """The context with what is typed at the cursor."""
        return replace(context, prefix=prefix, replace=span, quoted=quoted, line=line, position=pos)

    if parent.kind == "mapping" and parent.key_node(path[-1]) is node:
        return typed(CursorContext(frames, Role.KEY, colon_follows=True))
    if parent.kind == "mapping":
        return typed(CursorContext(frames, Role.VALUE, key=path[-1]))
    key = path[-2] if len(path) >= 2 else None
    return typed(CursorContext(frames, Role.VALUE, key=key, in_list=True))


def frames_along(root: Node, path: list[Key]) -> tuple[Frame, ...]:
    """Frames for the root and each node down `path` (which must exist in the tree)."""
    frames = [Frame(None, _keys(root))]
    node: Node | None = root
    for step in path:
        node = node.find([step]) if node is not None else None
        if node is None:
            break
        frames.append(Frame(step, _keys(node)))
    return tuple(frames)


def _keys(node: Node) -> dict[Any, Any] | None:
    if node.kind == "mapping":
        return node.value if isinstance(node.value, dict) else {}
    return None


def _typed(node: Node, line: str, pos: Position) -> tuple[str, Range, bool]:
    start, end = node.range.start, node.range.end
    if start.line != pos.line:
        return "", Range(pos, pos), False
    col = start.character
    quoted = line[col : col + 1] in ("'", '"')
    if quoted:
        col += 1
    stop = end.character if end.line == pos.line else len(line)
    if quoted and stop > col and line[stop - 1 : stop] == line[col - 1]:
        stop -= 1
    prefix = line[col : pos.character] if pos.character >= col else ""
    return (
        prefix,
        Range(Position(pos.line, col), Position(pos.line, max(stop, pos.character))),
        quoted,
    )
