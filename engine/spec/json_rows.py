"""JSON Lines rows read fast: values from the stdlib json, places from one scan of tokens.

A row of a JSON Lines dataset is one line of JSON. The general reader (event_reader.py)
reads it through libyaml's events, which gives every value its range but cost ~200 µs a
row, most of the first analysis of a 100,000-row dataset. A row is JSON, so here its
values come from `json.loads` (in C) and the range of each value from one regex scan of
its tokens (strings, numbers, literals, brackets; colons and commas carry nothing once
`json.loads` has accepted the line), walked alongside the parsed value.

The tree is the one the general reader makes, node for node, value for value and range
for range (tests/engine/spec/test_json_rows.py compares them, on generated rows too).
Wherever the two could differ `read_row` returns None and the general reader reads the
row: YAML reads some valid JSON its own way (a control character or a YAML line break
such as U+2028 in the line, a surrogate escape, NaN, a key over 1,024 characters), a
duplicate key is a warning, nesting or size past the limits is a problem at its place.

A row analysed without a problem need not keep its nodes: `fold` lets them go, keeping
the row's line on its Shift, and the root node reads the line again (here, the same
tree) the first time anything asks for more than its place (hover, a run, a re-read).
A 32,000-row dataset so holds its rows' text, not ~25 nodes and their values per row.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from .tree import Node, Shift

# Tokens that make nodes: a string, a bracket, or a bare literal (number, true, ...).
_TOKEN = re.compile(r'("[^"\\]*(?:\\.[^"\\]*)*")|([\[{])|([\]}])|([^\s,:\[\]{}"]+)')
_STRING, _OPEN, _CLOSE, _LITERAL_TOKEN = 1, 2, 3, 4
# Characters YAML reads otherwise than JSON, or that count lines differently: controls
# (tab included), C1 controls and U+0085, U+2028/2029, BOM, U+FFFE/FFFF; surrogates.
RISKY = "[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]"
# Those of them in ASCII: an ASCII line (`str.isascii` reads a flag) is searched for
# these, a bitmap; the full class, a table of all of Unicode (~4 M instructions to
# compile, a start-up cost of every command that reads a spec), for any other line.
_RISKY_ASCII = re.compile("[\x00-\x1f\x7f]")
# A \u escape of a surrogate (YAML's double-quoted escapes take none).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LITERAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")
_LONGEST_KEY = 1_000  # libyaml refuses implicit keys over 1,024 characters
_alloc = object.__new__


@cache
def risky() -> re.Pattern[str]:
    """The characters YAML reads otherwise (RISKY), for a line that is not ASCII."""
    return re.compile(RISKY)


def _read_otherwise(line: str) -> bool:
    """Whether YAML would read the line otherwise than JSON: a RISKY character, or a \\u
    escape of a surrogate."""
    if (_RISKY_ASCII if line.isascii() else risky()).search(line) is not None:
        return True
    return "\\u" in line and _SURROGATE_ESCAPE.search(line) is not None


class _Frame:
    __slots__ = ("key", "mapping", "nodes", "sc", "value")

    def __init__(self, mapping: bool, value: Any, sc: int) -> None:
        self.mapping, self.value, self.sc = mapping, value, sc
        self.nodes: list[Node] = []  # a sequence's items, a mapping's keys and values
        self.key: Node | None = None  # a mapping's key waiting for its value


def read_row(
    line: str, number: int, cell: Shift, *, max_depth: int, max_nodes: int
) -> tuple[Node, int] | None:
    """The located tree of one JSON line (line `number` of the file) and its node count;
    None when the general reader must read it (see the module docstring)."""
    if _read_otherwise(line):
        return None
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    try:
        return _walk(line, data, number, cell, max_depth, max_nodes)
    except (_Differs, LookupError):  # LookupError: the tokens and the values disagree
        return None


def row_value(line: str, *, max_depth: int, max_nodes: int) -> tuple[bool, Any]:
    """The value of one JSON line as its located tree's root holds it, without the tree:
    (True, value) when `json.loads` surely reads it as `read_row` would (none of the
    characters YAML reads otherwise, no NaN or Infinity, fewer brackets than the depth
    limit and fewer characters than the node limit: under both limits whatever the
    nesting); else (False, None), and the row is to be read in full (a bad row's problem
    comes from there). For readers that want a row's values, not their places (curation
    listing and filtering, `hub export`): ~10x faster than building the tree."""
    if (
        len(line) >= max_nodes
        or line.count("[") + line.count("{") >= max_depth
        or _read_otherwise(line)
    ):
        return False, None
    try:
        return True, json.loads(line, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return False, None


def row_places(line: str, key: str) -> tuple[tuple[int, int], tuple[int, int] | None] | None:
    """The columns (start, end) of a row's root and of the value of its top-level `key`
    (None when it has none; the last one when written twice, as the tree's `get`), from
    one scan of the tokens and no node: for a row `row_value` read, the ranges its tree
    would give. None when the line is not one value."""
    stack: list[list[bool]] = []  # per open container: [a mapping, waiting for a key]
    root_start, wanted, value_start = 0, False, -1
    found: tuple[int, int] | None = None
    # Written once (the usual case): the scan stops at its value. JSON's own whitespace
    # around the value is all a line `row_value` read holds outside it.
    # (A key written with \\u escapes could be it too: then the whole line is scanned.)
    once = line.count(json.dumps(key)) == 1 and "\\u" not in line
    body = line.strip(" \t\r\n")
    for match in _TOKEN.finditer(line):
        group = match.lastindex
        if group == _CLOSE:
            if not stack:
                return None
            stack.pop()
            if not stack:
                return (root_start, match.end()), found
            if len(stack) == 1 and value_start >= 0:
                found, value_start = (value_start, match.end()), -1
                if once:
                    break
            continue
        top = stack[-1] if stack else None
        if top is not None and top[0] and top[1]:  # a key
            top[1] = False
            token = match.group()
            name = token[1:-1] if "\\" not in token else json.loads(token)
            wanted = len(stack) == 1 and name == key
            continue
        if top is not None and top[0]:
            top[1] = True  # after this value, the next key
        if wanted:
            wanted = False
            if group == _OPEN:
                value_start = match.start()
            else:
                found = match.span()
                if once:
                    break
        if group == _OPEN:
            if not stack:
                root_start = match.start()
            stack.append([match.group() == "{", True])
        elif not stack:  # a scalar row
            return match.span(), None
    else:
        return None
    start = len(line) - len(line.lstrip(" \t\r\n"))
    return (start, start + len(body)), found


def _no_constant(name: str) -> Any:
    raise ValueError(name)  # NaN, Infinity: YAML reads some of them as other values


class _Differs(Exception):
    """The general reader would read this row otherwise."""


def _walk(
    line: str, data: Any, number: int, cell: Shift, max_depth: int, max_nodes: int
) -> tuple[Node, int] | None:
    stack: list[_Frame] = []
    frame: _Frame | None = None
    root: Node | None = None
    loads, alloc, node_class, literal = json.loads, _alloc, Node, _LITERAL.fullmatch
    count = 0
    for match in _TOKEN.finditer(line):
        group = match.lastindex
        count += 1
        if group == _CLOSE:
            if frame is None:
                raise _Differs
            done = frame
            node = alloc(node_class)
            node.value = done.value
            if done.mapping:
                if len(done.nodes) != 2 * len(done.value):  # a duplicate key
                    raise _Differs
                node.kind, node._flat, node.items = "mapping", done.nodes, ()
            else:
                node.kind, node._flat, node.items = "sequence", (), done.nodes
            node._sl, node._sc, node._el, node._ec = number, done.sc, number, match.end()
            node._cell, node._merged, node._index = cell, 0, None
            count -= 1  # a bracket, not a node
            stack.pop()
            frame = stack[-1] if stack else None
        else:
            token = match.group()
            if frame is not None and frame.mapping and frame.key is None:
                if group != _STRING or len(token) > _LONGEST_KEY:
                    raise _Differs
                key = token[1:-1] if "\\" not in token else loads(token)
                node = alloc(node_class)
                node.kind, node.value, node._flat, node.items = "scalar", key, (), ()
                node._sl, node._sc, node._el, node._ec = number, match.start(), number, match.end()
                node._cell, node._merged, node._index = cell, 0, None
                frame.key = node
                continue
            # The value this token stands for, from what json.loads made of the line.
            if frame is None:
                if root is not None:
                    raise _Differs
                value = data
            elif frame.mapping:
                value = frame.value[frame.key.value]  # type: ignore[union-attr]
            else:
                value = frame.value[len(frame.nodes)]
            if group == _OPEN:
                mapping = token == "{"
                if type(value) is not (dict if mapping else list) or len(stack) >= max_depth:
                    raise _Differs
                frame = _Frame(mapping, value, match.start())
                stack.append(frame)
                continue
            if group == _LITERAL_TOKEN and not literal(token):
                raise _Differs  # NaN, Infinity: YAML reads them as other values
            node = alloc(node_class)
            node.kind, node.value, node._flat, node.items = "scalar", value, (), ()
            node._sl, node._sc, node._el, node._ec = number, match.start(), number, match.end()
            node._cell, node._merged, node._index = cell, 0, None
        if frame is None:
            if root is not None:
                raise _Differs
            root = node
        elif frame.mapping:
            nodes = frame.nodes
            nodes.append(frame.key)  # type: ignore[arg-type]
            nodes.append(node)
            frame.key = None
        else:
            frame.nodes.append(node)
    if root is None or stack or count > max_nodes:
        return None
    return root, count


# What a folded root lets go (and reads again): all of Node's slots but its place.
_CONTENT = ("kind", "value", "_flat", "items", "_merged", "_index")


class _Folded(Node):
    """A row's root whose content was let go (see `fold`); as a Node once asked for it."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        # Only called for an attribute not set: the content, until read again.
        if name not in _CONTENT:
            raise AttributeError(name)
        cell = self._cell
        text = cell.text
        found = (
            None
            if text is None
            else read_row(text, self._sl, cell, max_depth=FOLD_DEPTH, max_nodes=FOLD_NODES)
        )
        if found is None:  # pragma: no cover - folded rows were read by read_row
            raise AttributeError(name)
        root = found[0]
        for slot in _CONTENT:
            setattr(self, slot, getattr(root, slot))
        self.__class__ = Node  # type: ignore[assignment]  # the same slots: a Node again
        return getattr(self, name)


def folded_value(node: Node) -> tuple[bool, Any]:
    """(True, the value) of a folded row's root, read from its line by `row_value`,
    without reading its nodes again (a row's status, its words for `--query`); (False,
    None) for any other node, or a line `row_value` leaves to the tree."""
    if type(node) is not _Folded:
        return False, None
    text = node._cell.text
    if text is None:  # pragma: no cover - a folded row keeps its line
        return False, None
    return row_value(text, max_depth=FOLD_DEPTH, max_nodes=FOLD_NODES)


def folded_key(node: Node, key: str) -> tuple[bool, Any]:
    """(True, the value of a folded row's top-level `key`, None when it has none), read
    without its nodes, and without reading the row at all when the key is not written in
    its line (a draft's `status`, in a 100,000-row dataset); (False, None) as
    `folded_value`."""
    if type(node) is not _Folded:
        return False, None
    text = node._cell.text
    if text is not None and json.dumps(key) not in text and "\\u" not in text:
        return True, None  # (with no \\u escape, the key can only be written as itself)
    read, value = folded_value(node)
    if not read:
        return False, None
    return True, value.get(key) if isinstance(value, dict) else None


# The limits a row was read under (source.py's MAX_ROW_DEPTH and MAX_NODES): reading the
# same line again under them gives the same tree.
FOLD_DEPTH = 200
FOLD_NODES = 750_000


# A row longer than this keeps its nodes: reading it again would take seconds (a 50 MB
# row), each time the language server completes or hovers in it after an analysis.
FOLD_LONGEST = 1_000_000


def fold(root: Node) -> None:
    """Let the nodes of a row's root go, when `read_row` read it (its Shift then keeps the
    line, to read them again on demand). The same object: whoever holds the root (its
    entry, the layout's row, a rebuild of its scenario) holds it still."""
    text = root._cell.text
    if type(root) is not Node or text is None or len(text) > FOLD_LONGEST:
        return
    for slot in _CONTENT:
        delattr(root, slot)
    root.__class__ = _Folded


# All of Node's slots but its Shift: what a folded node inside a row lets go.
_INSIDE = (*_CONTENT, "_sl", "_sc", "_el", "_ec")


class _FoldedInside(Node):
    """A node inside a folded row, kept by someone (a check's entry): found again under
    the row's root, by its path, the first time anything asks for more than its Shift."""

    __slots__ = ("_path", "_root")
    _path: tuple[Any, ...]
    _root: Node

    def __getattr__(self, name: str) -> Any:
        if name not in _INSIDE:
            raise AttributeError(name)
        found = object.__getattribute__(self, "_root").find(self._path)
        if found is None:  # pragma: no cover - the path was checked when folding
            raise AttributeError(name)
        for slot in _INSIDE:
            setattr(self, slot, getattr(found, slot))
        return getattr(self, name)


def fold_inside(root: Node, node: Node, path: tuple[Any, ...]) -> Node:
    """A stand-in for `node`, found at `path` under `root`, that keeps none of its content
    until asked (`node` itself when that path does not lead to it). Call before `fold`."""
    if type(node) is not Node or root.find(path) is not node:
        return node
    stand_in = _alloc(_FoldedInside)
    stand_in._cell, stand_in._root, stand_in._path = node._cell, root, path
    return stand_in
