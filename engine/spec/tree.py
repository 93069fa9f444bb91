"""The located tree: nodes that keep their value and 0-based range, and lookups by position.

Every node keeps its plain Python value (built once; aliases share their anchor's value) and
its range, so checks can read values and the CLI / language server can point at them. The
readers (event_reader.py, block_reader.py) build these nodes; source.py says which reads.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .lines import LineIndex, index_of
from .problems import Position, Problem, Range

# A mapping key or a sequence index: one step of a path from the root.
Key = str | int | float | bool | None

_new = tuple.__new__  # Position and Range are tuples: this skips their Python-level __new__


class Shift:
    """How many lines a part of the tree has moved since it was read.

    Nodes keep the lines they were read at; every node of one top-level entry (a scenario of
    a suite, a dataset row) shares one Shift, so an edit above it moves the whole entry by
    changing one number instead of rebuilding its nodes (see engine/spec/incremental.py).
    """

    __slots__ = ("aliased", "hints", "lines", "nodes", "problems", "text")

    def __init__(self, lines: int = 0) -> None:
        self.lines = lines
        # An alias was read inside the entry: its values then depend on text elsewhere (the
        # anchor), so analyses cached by the entry's own text must not be reused for it.
        self.aliased = False
        # Of the entry, as read: how many nodes it holds (aliases by their expanded size),
        # the reader's problems found inside it and the analysis's hints about its values a
        # comment cut short; ranges as read. (Never nodes: they point back at their Shift,
        # and a cycle would outlive a frozen analysis.)
        self.nodes = 0
        self.problems: tuple[Problem, ...] = ()
        self.hints: tuple[Problem, ...] = ()
        # A JSON Lines row's own line, kept when its nodes are let go (json_rows.fold).
        self.text: str | None = None


FIXED = Shift()  # nodes that never move on their own (the root and its direct children)


class Node:
    """One YAML/JSON node: its kind, plain value, range and (for collections) children.

    The range is kept as four ints plus the entry's Shift and made into a `Range` when
    asked: a file holds hundreds of thousands of nodes, and three tuples per node would be
    most of its memory and of the objects the garbage collector scans.
    """

    __slots__ = (
        "_cell",
        "_ec",
        "_el",
        "_flat",
        "_index",
        "_merged",
        "_sc",
        "_sl",
        "items",
        "kind",
        "value",
    )

    kind: str  # "mapping" | "sequence" | "scalar"
    value: Any
    items: Sequence[Node]

    def __init__(
        self,
        kind: str,
        value: Any,
        range: Range,
        entries: Sequence[tuple[Node, Node]] | None = None,
        items: Sequence[Node] | None = None,
        merged: int = 0,
        cell: Shift = FIXED,
    ) -> None:
        (sl, sc), (el, ec) = range
        self.kind = kind
        self.value = value
        self._sl, self._sc, self._el, self._ec, self._cell = sl, sc, el, ec, cell
        self._flat: Sequence[Node] = (
            [node for entry in entries for node in entry] if entries else ()
        )
        self.items = items if items is not None else ()
        self._merged = merged
        self._index: dict[Any, int] | None = None

    @property
    def entries(self) -> Pairs:
        """Mappings: the (key, value) entries that make up `value`, the last of a key
        winning. The first `_merged` come from `<<` merge keys and sit at their anchor."""
        return Pairs(self._flat)

    @property
    def range(self) -> Range:
        d = self._cell.lines
        return _new(
            Range,
            (_new(Position, (self._sl + d, self._sc)), _new(Position, (self._el + d, self._ec))),
        )

    @property
    def line(self) -> int:
        """The line the node starts on (cheaper than `range.start.line`)."""
        return self._sl + self._cell.lines

    @property
    def end_line(self) -> int:
        return self._el + self._cell.lines

    def _entry(self, key: Key) -> tuple[Node, Node] | None:
        if self.kind != "mapping":
            return None
        try:
            if key not in self.value:  # most lookups are of optional fields, absent
                return None
        except TypeError:  # unhashable key asked for
            return None
        flat = self._flat
        if len(flat) <= 2 * _SCAN_ENTRIES:  # a few keys: a scan costs less than an index
            for at in range(len(flat) - 2, -1, -2):  # the last one wins
                if flat[at].value == key:
                    return flat[at], flat[at + 1]
            return None
        if self._index is None:  # built on first lookup; later entries overwrite (last wins)
            self._index = {flat[at].value: at for at in range(0, len(flat), 2)}
        try:
            found = self._index.get(key)
        except TypeError:  # unhashable key asked for
            return None
        return None if found is None else (flat[found], flat[found + 1])

    def get(self, key: Key) -> Node | None:
        """The value node for `key` in a mapping (None if absent or not a mapping)."""
        # `_entry`'s usual cases written out: the analysis asks this a million times.
        if self.kind != "mapping":
            return None
        try:
            if key not in self.value:
                return None
        except TypeError:  # unhashable key asked for
            return None
        flat = self._flat
        if len(flat) <= 2 * _SCAN_ENTRIES:
            for at in range(len(flat) - 2, -1, -2):  # the last one wins
                if flat[at].value == key:
                    return flat[at + 1]
            return None
        entry = self._entry(key)
        return None if entry is None else entry[1]

    def key_node(self, key: Key) -> Node | None:
        """The key node for `key` in a mapping, to point at the key itself."""
        entry = self._entry(key)
        return None if entry is None else entry[0]

    def find(self, path: Sequence[Key]) -> Node | None:
        """Follow mapping keys and sequence indexes from this node."""
        node: Node | None = self
        for step in path:
            if node is None:
                return None
            if node.kind == "mapping":
                node = node.get(step)
            elif node.kind == "sequence" and type(step) is int and 0 <= step < len(node.items):
                node = node.items[step]
            else:
                return None
        return node

    def __repr__(self) -> str:
        start = self.range.start
        shown = repr(self.value)
        if len(shown) > 40:
            shown = shown[:37] + "..."
        return f"Node({self.kind} at {start.line}:{start.character}, {shown})"


class Pairs(Sequence[tuple[Node, Node]]):
    """A mapping's entries as (key, value) pairs, over one flat list [k0, v0, k1, v1, ...].

    A pair per entry cost a tuple each: most of a big file's objects after its nodes.
    """

    __slots__ = ("_flat",)

    def __init__(self, flat: Sequence[Node]) -> None:
        self._flat = flat

    def __len__(self) -> int:
        return len(self._flat) >> 1

    def __iter__(self) -> Iterator[tuple[Node, Node]]:
        pairs = iter(self._flat)
        return zip(pairs, pairs, strict=True)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return list(self)[index]
        count = len(self._flat) >> 1
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError(index)
        return self._flat[2 * index], self._flat[2 * index + 1]

    def __bool__(self) -> bool:
        return bool(self._flat)


# Mappings with at most this many keys are searched in place of building an index: most
# of a spec's mappings are small, and an index per mapping was a tenth of its memory.
_SCAN_ENTRIES = 8


@dataclass
class Source:
    """A parsed document: the root node (None if unreadable or empty) and what went wrong."""

    root: Node | None
    problems: list[Problem] = field(default_factory=list)
    text: str = ""
    # (key, value) of plain mapping values followed by ` #` (one blank) on the same line: in
    # `inputs: Where is my order #12345?` the value ends before ` #`, maybe by surprise.
    cut_values: list[tuple[Node, Node]] = field(default_factory=list)
    nodes: int = 0  # nodes read (aliases by their expanded size)
    aliased: bool = False  # anchors or aliases were read
    by_lines: bool = False  # read by the line reader (engine/spec/block_reader.py)

    @property
    def lines(self) -> LineIndex:
        """The line index of the text (shared with whoever else asks about this text)."""
        return index_of(self.text)

    def node_at(self, line: int, character: int) -> Node | None:
        """The deepest node (a key node when on a key) at this 0-based position."""
        return _locate(self.root, Position(line, character))[1]

    def path_at(self, line: int, character: int) -> list[Key]:
        """Keys and indexes from the root to the position; on a key the path ends with it."""
        return _locate(self.root, Position(line, character))[0]

    def find(self, path: Sequence[Key]) -> Node | None:
        return None if self.root is None else self.root.find(path)


def _hit(rng: Range, pos: Position, touching: bool) -> bool:
    if touching:  # a cursor just after a token (typing, completion) belongs to it
        return rng.end == pos
    return rng.start <= pos < rng.end or rng.start == pos


def _locate(root: Node | None, pos: Position) -> tuple[list[Key], Node | None]:
    if root is None or not (_hit(root.range, pos, False) or _hit(root.range, pos, True)):
        return [], None
    path: list[Key] = []
    node = root
    while True:
        # (path step, child, is it a key) in source order; merged entries live at their
        # anchor, not inside this mapping, so they are skipped here.
        children: list[tuple[Key, Node, bool]]
        if node.kind == "mapping":
            children = []
            flat = node._flat
            for at in range(2 * node._merged, len(flat), 2):
                key = flat[at]
                children.append((key.value, key, True))
                children.append((key.value, flat[at + 1], False))
        elif node.kind == "sequence":
            items, first = node.items, 0
            if len(items) > _BISECT_ITEMS:  # ordered, disjoint: only the neighbours can hit
                first = max(0, bisect_right(items, pos, key=_start) - 2)
                items = items[first : first + 3]
            children = [(first + i, item, False) for i, item in enumerate(items)]
        else:
            return path, node
        found = next(
            (c for touching in (False, True) for c in children if _hit(c[1].range, pos, touching)),
            None,
        )
        if found is None:
            return path, node
        step, child, is_key = found
        path.append(step)
        if is_key:
            return path, child
        node = child


_BISECT_ITEMS = 16


def _start(node: Node) -> Position:
    return node.range.start
