"""Parse spec text (YAML or JSON) into a tree of located nodes.

Pure functions, no file I/O. YAML is read with PyYAML's *safe* machinery only: tags are never
run, and anything outside the safe set is reported (`unsafe-tag`) and read as null. The tree
is built straight from the parser's event stream (not ``yaml.compose``'s node graph) because
events carry the position of every alias, which the node graph loses, and because skipping
the intermediate graph makes parsing several times faster.

Every node keeps its plain Python value (built once; aliases share their anchor's value) and
its 0-based range, so checks can read values and the CLI / language server can point at them.
"""

from __future__ import annotations

import json as jsonlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import yaml
from yaml.constructor import SafeConstructor
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode
from yaml.reader import ReaderError
from yaml.resolver import Resolver

from ..core.gcpause import gc_paused
from .lines import LineIndex, line_count, split_lines
from .problems import Position, Problem, Range, Severity

try:  # libyaml is ~10x faster and reports the same marks
    from yaml import CSafeLoader as _BaseLoader
    from yaml._yaml import CParser as _CountingParser
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

    _CountingParser = None  # type: ignore[assignment, misc]  # PyYAML without libyaml

__all__ = ["MAX_NODES", "Key", "Node", "Source", "parse_jsonl_lines", "parse_source", "too_large"]

# A mapping key or a sequence index: one step of a path from the root.
Key = str | int | float | bool | None

_T = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL, _MERGE = (
    _T + "str",
    _T + "int",
    _T + "float",
    _T + "bool",
    _T + "null",
    _T + "merge",
)
_TIMESTAMP = _T + "timestamp"
_CONSTRUCTED = frozenset({_INT, _FLOAT, _BOOL, _NULL})
# Safe scalar tags whose value stays the source text: values must stay JSON-like, so
# timestamps and binary are not turned into datetime / bytes.
_AS_TEXT = frozenset({_STR, _TIMESTAMP, _T + "binary", _T + "value", _T + "yaml", _MERGE})
_MAPPING_TAGS = frozenset({_T + "map", _T + "set"})
_SEQUENCE_TAGS = frozenset({_T + "seq", _T + "omap", _T + "pairs"})

# Long strings count as several nodes (one per 100 characters) so a big anchored string that
# is aliased many times is caught by the same expansion limit as a classic alias bomb.
_CHARS_PER_NODE = 100

# Tag and anchor properties in front of a collection, to underline just them on a bad tag.
_PROPERTIES = re.compile(r"(?:[!&][^\s,\[\]{}]*[ \t]*)+")

_new = tuple.__new__  # Position and Range are tuples: this skips their Python-level __new__
_COMMENT_START = re.compile(r"[ \t]#")
_NESTING_ERROR = "exceeded maximum nesting depth"
_LIBYAML_MAX_DEPTH = 1000

# Most nodes (keys, values, items, aliases expanded) a file may hold: past this, reading and
# analysing it would take seconds on every keystroke. A 60,000-line suite holds ~150,000.
MAX_NODES = 300_000
# YAML 1.1 (libyaml) ends lines at these too; editors and YAML 1.2 do not. They are swapped
# for unused private-use characters while parsing, so positions and values follow the editor.
_FOREIGN_BREAKS = "\x85\u2028\u2029"
_BOM = "\ufeff"


class _Loader(_BaseLoader):
    """Safe loader with its own frozen resolver table.

    The table is a snapshot of PyYAML's default one minus timestamps (dates stay strings),
    so a global ``yaml.add_implicit_resolver`` elsewhere cannot change how specs read.
    """


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
    for first, resolvers in Resolver.yaml_implicit_resolvers.items()
}
_RESOLVERS: dict[str | None, list[tuple[str, re.Pattern[str]]]] = _Loader.yaml_implicit_resolvers
# Snapshot of the few constructors used, for the same reason as the resolver table.
_CONSTRUCTORS = {tag: SafeConstructor.yaml_constructors[tag] for tag in _CONSTRUCTED}
_CONSTRUCTOR = SafeConstructor()  # stateless for scalars; shared by all parses


class Node:
    """One YAML/JSON node: its kind, plain value, range and (for collections) children."""

    __slots__ = ("_index", "_merged", "entries", "items", "kind", "range", "value")

    kind: str  # "mapping" | "sequence" | "scalar"
    value: Any
    range: Range
    entries: list[tuple[Node, Node]]
    items: list[Node]

    def __init__(
        self,
        kind: str,
        value: Any,
        range: Range,
        entries: list[tuple[Node, Node]] | None = None,
        items: list[Node] | None = None,
        merged: int = 0,
    ) -> None:
        self.kind = kind
        self.value = value
        self.range = range
        # Mappings: the entries that make up `value`, last one winning. The first `merged` of
        # them come from `<<` merge keys and sit at their anchor, elsewhere in the file.
        self.entries = entries if entries is not None else []
        self.items = items if items is not None else []
        self._merged = merged
        self._index: dict[Any, int] | None = None

    def _entry(self, key: Key) -> tuple[Node, Node] | None:
        if self.kind != "mapping":
            return None
        if self._index is None:  # built on first lookup; later entries overwrite (last wins)
            self._index = {k.value: i for i, (k, _) in enumerate(self.entries)}
        try:
            i = self._index.get(key)
        except TypeError:  # unhashable key asked for
            return None
        return None if i is None else self.entries[i]

    def get(self, key: Key) -> Node | None:
        """The value node for `key` in a mapping (None if absent or not a mapping)."""
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


@dataclass
class Source:
    """A parsed document: the root node (None if unreadable or empty) and what went wrong."""

    root: Node | None
    problems: list[Problem] = field(default_factory=list)
    text: str = ""
    # (key, value) of plain mapping values followed by ` #` (one blank) on the same line: in
    # `inputs: Where is my order #12345?` the value ends before ` #`, maybe by surprise.
    cut_values: list[tuple[Node, Node]] = field(default_factory=list)

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
            for key, value in node.entries[node._merged :]:  # noqa: SLF001 (nodes of this module)
                children.append((key.value, key, True))
                children.append((key.value, value, False))
        elif node.kind == "sequence":
            children = [(i, item, False) for i, item in enumerate(node.items)]
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


def _tag_name(tag: str) -> str:
    return "!!" + tag[len(_T) :] if tag.startswith(_T) else tag


def _tag_message(tag: str, kind: str) -> str:
    name = _tag_name(tag)
    if tag.startswith(_T + "python/"):
        return f"tag {name} is refused: spec files are read as plain data, never as Python objects"
    return f"tag {name} is not allowed on a {kind} here (only plain YAML data tags are read)"


def _size(n: int) -> str:
    for unit, scale in (("MB", 1_000_000), ("KB", 1_000)):
        if n >= scale:
            return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n} bytes"


class _Abort(Exception):
    """A limit was hit: the problem is recorded and the document is not read further."""


class _Frame:
    """An open mapping or sequence while its events stream in."""

    __slots__ = (
        "anchor",
        "bad_tag",
        "entries",
        "height",
        "items",
        "key",
        "key_is_merge",
        "kind",
        "merges",
        "size",
        "start",
        "value",
    )

    def __init__(self, kind: str, start: Position, anchor: str | None, bad_tag: str | None):
        self.kind = kind
        self.start = start
        self.anchor = anchor
        self.bad_tag = bad_tag
        self.value: Any = {} if kind == "mapping" else []
        self.entries: list[tuple[Node, Node]] = []
        self.items: list[Node] = []
        self.key: Node | None = None  # mapping: key waiting for its value
        self.key_is_merge = False
        self.merges: list[Node] = []  # mapping: values of `<<` keys
        self.size = 1  # nodes in the expanded subtree
        self.height = 1  # nesting levels in the expanded subtree


class _Builder:
    """Turns the event stream of the first document into Nodes, enforcing the limits."""

    def __init__(
        self, text: str, *, json: bool, line_offset: int, max_depth: int, max_nodes: int
    ) -> None:
        self.original = text  # what positions and JSON values refer to
        self.json = json
        self.line_offset = line_offset
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.problems: list[Problem] = []
        self.syntax_failed = False
        # name -> (node, expanded size, height); complete nodes only, so an alias to an anchor
        # that is still open (a recursive structure) is told apart.
        self.anchors: dict[str, tuple[Node, int, int]] = {}
        self.nodes = 0  # nodes read, aliases counted by their expanded size
        self.plain_cache: dict[str, tuple[str, Any]] = {}
        self.lines = LineIndex(text)
        self.last_line = line_offset + line_count(text) - 1
        self.text, self.restore = _prepared(text)
        self.cut_values: list[tuple[Node, Node]] = []
        self.commented: Node | None = None  # the last plain scalar a comment follows
        self.comment_lines = _comment_lines(text, self.lines, line_offset)
        if text.startswith(_BOM):  # libyaml drops a leading BOM from its columns
            self._pos = self._pos_after_bom  # type: ignore[method-assign]
            self._range = self._range_after_bom  # type: ignore[method-assign]

    # -- positions and problems ------------------------------------------------------------

    def _pos(self, mark: Any) -> Position:
        line = mark.line + self.line_offset
        if line > self.last_line:  # an end "on the next line" of a text without final break
            return self._end()
        return Position(line, mark.column)

    def _range(self, ev: Any) -> Range:  # hot path: _pos and the tuple constructors inlined
        start, end, offset = ev.start_mark, ev.end_mark, self.line_offset
        if end.line + offset > self.last_line:
            return Range(self._pos(start), self._end())
        return _new(
            Range,
            (
                _new(Position, (start.line + offset, start.column)),
                _new(Position, (end.line + offset, end.column)),
            ),
        )

    def _pos_after_bom(self, mark: Any) -> Position:
        line = mark.line + self.line_offset
        if line > self.last_line:
            return self._end()
        return Position(line, mark.column + 1 if mark.line == 0 else mark.column)

    def _range_after_bom(self, ev: Any) -> Range:
        return Range(self._pos(ev.start_mark), self._pos(ev.end_mark))

    def _end(self) -> Position:
        end = self.lines.end
        return Position(end.line + self.line_offset, end.character)

    def _add(
        self, code: str, message: str, rng: Range, severity: Severity = Severity.ERROR
    ) -> None:
        self.problems.append(Problem(code, message, rng, severity))

    def _index_to_position(self, index: int) -> Position:
        """The position of a character offset in the text."""
        pos = self.lines.position(index)
        return Position(pos.line + self.line_offset, pos.character)

    def _mark_index_to_position(self, index: int) -> Position:
        """The position of an offset libyaml reports (it does not count a leading BOM)."""
        return self._index_to_position(index + (1 if self.original.startswith(_BOM) else 0))

    # -- driver ----------------------------------------------------------------------------

    def run(self) -> Node | None:
        loader = None
        try:
            loader = _Loader(self.text)
            with gc_paused():  # the tree is many small acyclic objects: see gcpause.py
                return self._document(loader)
        except _Abort:
            return None
        except yaml.MarkedYAMLError as e:
            self._syntax_error(e)
        except ReaderError as e:
            char = e.character if isinstance(e.character, int) else ord(e.character)
            pos = self._mark_index_to_position(e.position)
            self.syntax_failed = True
            self._add("syntax", f"{e.reason} (found U+{char:04X})", Range(pos, pos))
        except yaml.YAMLError as e:  # pragma: no cover - every PyYAML error carries a mark
            self.syntax_failed = True
            self._add("syntax", str(e), Range.point(self.line_offset, 0))
        except RecursionError:  # pragma: no cover - the builder is iterative; belt and braces
            self._add("too-deep", "nesting is too deep to read", Range.point(self.line_offset, 0))
        except UnicodeEncodeError as e:  # a lone surrogate, e.g. from surrogateescape decoding
            pos = self._index_to_position(e.start)
            char = ord(e.object[e.start])
            self.syntax_failed = True
            self._add("syntax", f"text is not valid Unicode (found U+{char:04X})", Range(pos, pos))
        finally:
            if loader is not None:
                loader.dispose()
        return None

    def _syntax_error(self, e: yaml.MarkedYAMLError) -> None:
        mark = e.problem_mark or e.context_mark
        pos = self._pos(mark) if mark is not None else Position(self.line_offset, 0)
        if e.problem and _NESTING_ERROR in e.problem:
            # libyaml's own cap, which its look-ahead can hit before our check sees the
            # first event: said where libyaml stopped, so with libyaml's number.
            message = f"nesting is deeper than {_LIBYAML_MAX_DEPTH} levels"
            self._add("too-deep", message, Range(pos, pos))
            return
        self.syntax_failed = True
        message = e.problem or e.context or "invalid YAML"
        if e.problem and e.context:
            message = f"{e.problem} ({e.context})"
        self._add("syntax", message, Range(pos, pos))

    def _document(self, loader: Any) -> Node | None:
        get_event = loader.get_event
        get_event()  # StreamStart
        if loader.check_event(StreamEndEvent):  # empty or only comments
            return None
        get_event()  # DocumentStart
        root = self._root(get_event)
        get_event()  # DocumentEnd
        try:
            if loader.check_event(DocumentStartEvent):
                rng = self._range(loader.peek_event())
                self._add("syntax", "only the first YAML document is read", rng, Severity.WARNING)
        except yaml.MarkedYAMLError as e:  # broken text after the first document
            self._syntax_error(e)
        if root.kind == "scalar" and root.value is None and root.range.start == root.range.end:
            return None  # `---` with nothing after it
        return root

    def _root(self, get_event: Any) -> Node:
        stack: list[_Frame] = []
        max_depth, max_nodes = self.max_depth, self.max_nodes
        nodes = self.nodes  # a local in the loop; aliases add their expanded size
        try:
            while True:
                ev = get_event()
                cls = type(ev)
                is_merge = False
                if cls is ScalarEvent:
                    nodes += 1
                    if nodes > max_nodes:
                        self._too_many(ev)
                    node, is_merge = self._scalar(ev)
                    size = 1 + len(ev.value) // _CHARS_PER_NODE
                    height = 0
                elif cls is MappingStartEvent or cls is SequenceStartEvent:
                    nodes += 1
                    if nodes > max_nodes:
                        self._too_many(ev)
                    if len(stack) >= max_depth:
                        pos = self._pos(ev.start_mark)
                        message = f"nesting is deeper than {max_depth} levels"
                        self._add("too-deep", message, Range(pos, pos))
                        raise _Abort
                    kind = "mapping" if cls is MappingStartEvent else "sequence"
                    stack.append(self._open(ev, kind))
                    continue
                elif cls is MappingEndEvent or cls is SequenceEndEvent:
                    frame = stack.pop()
                    node = self._close(frame, ev)
                    size, height = frame.size, frame.height
                    if frame.bad_tag is not None:
                        size, height = 1, 0
                    if frame.anchor is not None:
                        self.anchors[frame.anchor] = (node, size, height)
                elif cls is AliasEvent:
                    self.nodes = nodes
                    node, size, height = self._alias(ev, stack)
                    nodes = self.nodes
                else:  # pragma: no cover - the parser guarantees balanced events
                    raise yaml.YAMLError(f"unexpected {cls.__name__}")

                if cls is ScalarEvent and ev.anchor is not None:
                    self.anchors[ev.anchor] = (node, size, height)
                if not stack:
                    return node
                parent = stack[-1]
                parent.size += size
                if height >= parent.height:
                    parent.height = height + 1
                if parent.kind == "sequence":
                    parent.items.append(node)
                    parent.value.append(node.value)
                else:
                    self._attach(parent, node, is_merge)
        finally:
            self.nodes = nodes

    def _too_many(self, ev: Any) -> None:
        pos = self._pos(ev.start_mark)
        self._add("too-many-nodes", _too_many_message(self.max_nodes), Range(pos, pos))
        raise _Abort

    # -- nodes -----------------------------------------------------------------------------

    def _scalar(self, ev: ScalarEvent) -> tuple[Node, bool]:
        rng = self._range(ev)
        raw: str = ev.value
        if self.json:  # exact JSON semantics (numbers, escapes) from the source slice
            try:
                start, end = ev.start_mark, ev.end_mark
                assert start is not None and end is not None  # events from a parser have marks
                value = jsonlib.loads(self.original[start.index : end.index])
            except jsonlib.JSONDecodeError:
                # YAML read this valid JSON differently (e.g. an implied empty value next to a
                # key over 1024 characters): give up on positions, keep the JSON values.
                self.syntax_failed = True
                raise _Abort from None
            return Node("scalar", value, rng), False
        if self.restore is not None:
            raw = raw.translate(self.restore)
        tag = ev.tag
        if tag is None and ev.implicit[0]:  # plain scalar: resolve like SafeLoader does
            hit = self.plain_cache.get(raw)
            if hit is None:
                tag = _STR
                for candidate, regexp in _RESOLVERS.get(raw[:1], ()):
                    if regexp.match(raw):
                        tag = candidate
                        break
                value = self._construct(tag, raw, rng) if tag in _CONSTRUCTED else raw
                hit = self.plain_cache[raw] = (tag, value)
            tag, value = hit
            node = Node("scalar", value, rng)
            if self.comment_lines and rng.end.line in self.comment_lines:
                self._note_comment(node)
            return node, tag == _MERGE
        if tag is None or tag == "!" or tag in _AS_TEXT:
            return Node("scalar", raw, rng), tag == _MERGE
        if tag in _CONSTRUCTED:
            return Node("scalar", self._construct(tag, raw, rng), rng), False
        self._add("unsafe-tag", _tag_message(tag, "scalar"), rng)
        return Node("scalar", None, rng), False

    def _note_comment(self, node: Node) -> None:
        end = node.range.end
        rest = self.lines.line(end.line - self.line_offset)[end.character :]
        # One blank before `#` reads as text; a comment meant as one is set apart by two
        # (yamllint's default), so only the first is worth a hint.
        if rest[:1] in (" ", "\t") and rest[1:2] == "#":
            self.commented = node

    def _construct(self, tag: str, raw: str, rng: Range) -> Any:
        try:
            return _CONSTRUCTORS[tag](_CONSTRUCTOR, ScalarNode(tag, raw))
        except (ValueError, KeyError, TypeError, yaml.YAMLError):
            self._add("syntax", f"cannot read {raw!r} as {_tag_name(tag)}", rng)
            return None

    def _open(self, ev: Any, kind: str) -> _Frame:
        tag = ev.tag
        allowed = _MAPPING_TAGS if kind == "mapping" else _SEQUENCE_TAGS
        bad = None if tag is None or tag == "!" or tag in allowed else tag
        return _Frame(kind, self._pos(ev.start_mark), ev.anchor, bad)

    def _close(self, frame: _Frame, ev: Any) -> Node:
        rng = Range(frame.start, self._pos(ev.end_mark))
        if frame.bad_tag is not None:
            # Underline the tag (and anchor) rather than the whole collection.
            line = frame.start.line - self.line_offset
            start = self.lines.offset(Position(line, frame.start.character))
            m = _PROPERTIES.match(self.original, start)
            width = len(m.group().rstrip()) if m else 0
            tag_range = Range(
                frame.start, Position(frame.start.line, frame.start.character + width)
            )
            self._add("unsafe-tag", _tag_message(frame.bad_tag, frame.kind), tag_range)
            return Node("scalar", None, rng)
        if frame.kind == "sequence":
            return Node("sequence", frame.value, rng, items=frame.items)
        if not frame.merges:
            return Node("mapping", frame.value, rng, entries=frame.entries)
        merged = self._merged_entries(frame.merges)
        value = {k.value: v.value for k, v in merged}
        value.update(frame.value)
        return Node("mapping", value, rng, entries=merged + frame.entries, merged=len(merged))

    def _merged_entries(self, merges: list[Node]) -> list[tuple[Node, Node]]:
        # Same order as SafeConstructor.flatten_mapping: within a list of mappings the
        # earlier ones win, and explicit keys (appended after these) win over all of them.
        out: list[tuple[Node, Node]] = []
        for merge in merges:
            if merge.kind == "mapping":
                out.extend(merge.entries)
            elif merge.kind == "sequence" and all(i.kind == "mapping" for i in merge.items):
                for item in reversed(merge.items):
                    out.extend(item.entries)
            else:
                self._add(
                    "syntax", "a `<<` merge needs a mapping or a list of mappings", merge.range
                )
        return out

    def _attach(self, frame: _Frame, node: Node, is_merge: bool) -> None:
        key = frame.key
        if key is None:
            frame.key = node
            frame.key_is_merge = is_merge
            return
        frame.key = None
        if frame.key_is_merge:
            frame.merges.append(node)
            return
        if key.kind != "scalar":
            self._add("syntax", f"a mapping key must be a plain value, not a {key.kind}", key.range)
            return
        k = key.value
        if k in frame.value:
            self._add(
                "duplicate-key",
                f"duplicate key {k!r}: the later value wins",
                key.range,
                Severity.WARNING,
            )
        frame.value[k] = node.value
        frame.entries.append((key, node))
        if node is self.commented:
            self.cut_values.append((key, node))

    def _alias(self, ev: AliasEvent, stack: list[_Frame]) -> tuple[Node, int, int]:
        rng = self._range(ev)
        name = ev.anchor or ""  # an alias event always names its anchor
        if any(frame.anchor == name for frame in stack):
            self._add(
                "alias-bomb", f"alias *{name} refers to a node that contains it (endless)", rng
            )
            raise _Abort
        target = self.anchors.get(name)
        if target is None:
            self.syntax_failed = True
            self._add("syntax", f"found undefined alias *{name}", rng)
            raise _Abort
        node, size, height = target
        self.nodes += size
        if self.nodes > self.max_nodes:
            self._add(
                "alias-bomb", f"YAML aliases expand to more than {self.max_nodes:,} nodes", rng
            )
            raise _Abort
        if len(stack) + height > self.max_depth:
            self._add("too-deep", f"alias *{name} nests deeper than {self.max_depth} levels", rng)
            raise _Abort
        # A new node at the alias's position that shares the anchor's value and children.
        shared = Node(node.kind, node.value, rng, node.entries, node.items, node._merged)  # noqa: SLF001
        return shared, size, height


def _whole(text: str, line_offset: int) -> Range:
    end = LineIndex(text).end
    return Range(Position(line_offset, 0), Position(end.line + line_offset, end.character))


def _comment_lines(text: str, lines: LineIndex, line_offset: int) -> frozenset[int]:
    """Lines where a `#` follows a blank: where a comment may cut a plain value short."""
    if "#" not in text:
        return frozenset()
    return frozenset(
        lines.position(m.start()).line + line_offset for m in _COMMENT_START.finditer(text)
    )


def _prepared(text: str) -> tuple[str, dict[int, int] | None]:
    """The text for libyaml, and how to turn its values back (None: it is the text itself).

    U+0085, U+2028 and U+2029 become private-use characters the text does not use, so they
    stay ordinary characters (YAML 1.2, and every editor) and line numbers match the editor's.
    """
    if not any(ch in text for ch in _FOREIGN_BREAKS):
        return text, None
    spare = (chr(c) for c in range(0xE000, 0xF900) if chr(c) not in text)
    swap = {ord(ch): ord(next(spare)) for ch in _FOREIGN_BREAKS}
    return text.translate(swap), {new: old for old, new in swap.items()}


def _from_json(data: Any, rng: Range, depth: int, max_depth: int) -> Node:
    """Tree for valid JSON that YAML could not read: right values, whole-document ranges."""
    if depth > max_depth and isinstance(data, dict | list):  # levels of nesting, as in YAML
        raise _Abort
    if isinstance(data, dict):
        entries = [
            (Node("scalar", k, rng), _from_json(v, rng, depth + 1, max_depth))
            for k, v in data.items()
        ]
        return Node("mapping", data, rng, entries=entries)
    if isinstance(data, list):
        items = [_from_json(v, rng, depth + 1, max_depth) for v in data]
        return Node("sequence", data, rng, items=items)
    return Node("scalar", data, rng)


def _differs(root: Node | None, data: Any) -> bool:
    # Belt and braces: a JSON tree must carry exactly the values `json.loads` gives.
    try:
        return root is not None and root.value != data
    except RecursionError:  # pragma: no cover - only with a max_depth near the recursion limit
        return False


class _Parsed(NamedTuple):
    root: Node | None
    problems: list[Problem]
    nodes: int = 0  # how many were read
    cut_values: Sequence[tuple[Node, Node]] = ()


def _parse(text: str, *, json: bool, line_offset: int, max_depth: int, max_nodes: int) -> _Parsed:
    if not text.strip():
        return _Parsed(None, [])
    data: Any = None
    json_too_deep = False
    if json:
        try:
            data = jsonlib.loads(text)
        except jsonlib.JSONDecodeError as e:
            pos = LineIndex(text).position(e.pos)
            problem = Problem("syntax", e.msg, Range.point(pos.line + line_offset, pos.character))
            return _Parsed(None, [problem])
        except ValueError as e:  # valid syntax json will not convert (a 5,000-digit number)
            return _Parsed(None, [Problem("syntax", str(e), Range.point(line_offset, 0))])
        except RecursionError:  # the YAML pass below finds where it gets too deep
            json_too_deep = True
    too_many = _surely_too_many(text, max_nodes, line_offset)
    if too_many is not None:
        return _Parsed(None, [too_many])
    builder = _Builder(
        text, json=json, line_offset=line_offset, max_depth=max_depth, max_nodes=max_nodes
    )
    root = builder.run()
    problems = builder.problems
    if json_too_deep:  # keep where the YAML pass found it too deep, else the whole text
        deep = [p for p in problems if p.code == "too-deep"]
        whole = Problem("too-deep", "nesting is too deep to read", _whole(text, line_offset))
        return _Parsed(None, deep or [whole], builder.nodes)
    if json and (builder.syntax_failed or _differs(root, data)):
        # Valid JSON that YAML cannot read (e.g. a key over 1024 characters, a surrogate
        # escape): keep the JSON values and give up on exact positions.
        rng = _whole(text, line_offset)
        try:
            return _Parsed(_from_json(data, rng, 1, max_depth), [], builder.nodes)
        except (_Abort, RecursionError):
            problem = Problem("too-deep", f"nesting is deeper than {max_depth} levels", rng)
            return _Parsed(None, [problem], builder.nodes)
    return _Parsed(root, problems, builder.nodes, builder.cut_values)


def _too_many_message(max_nodes: int) -> str:
    return (
        f"file holds more than {max_nodes:,} YAML nodes (keys, values, list items): it is too "
        "big to analyse; split it into smaller files"
    )


def _surely_too_many(text: str, max_nodes: int, line_offset: int) -> Problem | None:
    """Refuse at once a text that holds far more nodes than allowed (a million-item list).

    libyaml counts the events in C without building anything (~10x faster than reading
    them); a node gives one or two events, so more than twice the limit is surely too many.
    Below that the reader counts exactly and stops where the limit is crossed.
    """
    if _CountingParser is None or len(text) <= max_nodes:  # too short to hold that many
        return None
    try:
        events = _CountingParser(_prepared(text)[0]).raw_parse()
    except Exception:  # a syntax error: the reader will say where
        return None
    if events - 5 <= 2 * max_nodes:
        return None
    return Problem("too-many-nodes", _too_many_message(max_nodes), Range.point(line_offset, 0))


def too_large(text: str, max_bytes: int) -> Problem | None:
    """The problem of a text over `max_bytes` UTF-8 bytes (cheap: encodes only when it may be)."""
    if len(text) * 4 <= max_bytes:  # no need to encode: cannot be over
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= max_bytes:
        return None
    message = (
        f"file is {_size(size)}, over the {_size(max_bytes)} limit (setting checkspec.maxFileSize)"
    )
    return Problem("too-large", message, Range.point(0, 0))


def parse_source(
    text: str,
    *,
    json: bool = False,
    max_bytes: int = 10_000_000,
    max_depth: int = 200,
    max_nodes: int = MAX_NODES,
) -> Source:
    """Parse YAML (or JSON with ``json=True``) text; never raises on bad input."""
    refused = too_large(text, max_bytes)
    if refused is not None:
        return Source(None, [refused], text)
    parsed = _parse(text, json=json, line_offset=0, max_depth=max_depth, max_nodes=max_nodes)
    return Source(parsed.root, parsed.problems, text, list(parsed.cut_values))


def parse_jsonl_lines(
    text: str,
    *,
    max_bytes: int = 10_000_000,
    max_depth: int = 200,
    max_nodes: int = MAX_NODES,
) -> tuple[list[tuple[int, Node]], list[Problem]]:
    """Parse JSON Lines: (0-based line number, root node) per non-blank line, and problems.

    Positions are those in the whole text (lines end as in editors, see lines.py); a bad line
    gives a problem and the others still parse. `max_nodes` bounds the whole file.
    """
    refused = too_large(text, max_bytes)
    if refused is not None:
        return [], [refused]
    rows: list[tuple[int, Node]] = []
    problems: list[Problem] = []
    budget = max_nodes
    for number, line in enumerate(split_lines(text)):
        if not line.strip():
            continue
        root, found, read, _ = _parse(
            line, json=True, line_offset=number, max_depth=max_depth, max_nodes=budget
        )
        budget -= read
        if any(p.code == "too-many-nodes" for p in found):  # say the file's limit, and stop
            message = _too_many_message(max_nodes)
            problems.extend(
                replace(p, message=message) if p.code == "too-many-nodes" else p for p in found
            )
            break
        problems.extend(found)
        if root is not None:
            rows.append((number, root))
    return rows, problems
